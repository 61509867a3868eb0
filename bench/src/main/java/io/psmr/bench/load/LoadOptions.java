package io.psmr.bench.load;

import io.psmr.scheduler.SchedulerMode;
import io.psmr.kvstore.StoreSizing;
import io.psmr.kvstore.StoreCapacity;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything a {@code ./psmr load} run needs: the embedded cluster, the proxy and the workload.
 * Validation with messages naming flags is the command line's; this record only checks what the
 * parts it builds would refuse anyway.
 *
 * @param replicas        replicas in the embedded cluster
 * @param mode            replica configuration
 * @param workers         worker threads per replica
 * @param batch           most client commands per batch
 * @param window          outstanding batches of the proxy
 * @param linger          the proxy's linger (zero: send as soon as the window allows)
 * @param conflictPercent percentage of batches that write the shared hot key, 0 to 100
 * @param retryTimeout    the proxy's retry timeout
 * @param workload        the clients' workload
 * @param capacity        the embedded replicas' replicated store capacity; writes beyond it are refused FULL
 *                        (the 9-argument constructor: {@link StoreSizing#workloadCapacity}, never reached)
 */
public record LoadOptions(int replicas, SchedulerMode mode, int workers, int batch, int window, Duration linger,
                          double conflictPercent, Duration retryTimeout, WorkloadSpec workload, StoreCapacity capacity) {

    /** Checks nulls and ranges. */
    public LoadOptions {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(linger, "linger");
        Objects.requireNonNull(retryTimeout, "retryTimeout");
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(capacity, "capacity");
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1, got " + replicas);
        }
        if (!(conflictPercent >= 0 && conflictPercent <= 100)) {
            throw new IllegalArgumentException("conflictPercent must be from 0 to 100, got " + conflictPercent);
        }
    }

    /** Options whose capacity is {@link StoreSizing#workloadCapacity}: large enough that the run never sees FULL. */
    public LoadOptions(int replicas, SchedulerMode mode, int workers, int batch, int window, Duration linger,
                       double conflictPercent, Duration retryTimeout, WorkloadSpec workload) {
        this(replicas, mode, workers, batch, window, linger, conflictPercent, retryTimeout, workload,
                StoreSizing.workloadCapacity(batch, workload.keys(), workload.multiPutKeys(), workload.valueSize()));
    }
}
