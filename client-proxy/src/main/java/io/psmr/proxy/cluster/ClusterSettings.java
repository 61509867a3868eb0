package io.psmr.proxy.cluster;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.proxy.load.LoadMode;
import java.time.Duration;

/**
 * The settings every process of a cluster must agree on, fixed by {@code cluster start} and read
 * from {@code cluster.json} by each node and by each load process: the conflict-detection mode
 * (replicas and proxies must use the same), the replicas' workers and store size, and the Ring
 * Paxos tick.
 *
 * @param mode       a {@link LoadMode} label: bitmap, rw-bitmap, keys, cbase or sequential
 * @param workers    worker threads per replica
 * @param maxKeys    keys each replica's Chronicle Map is sized for
 * @param valueBytes the value size the store is sized for (larger values still fit, up to {@link KvLimits})
 * @param tickMillis the Ring Paxos tick; timeouts are counted in ticks
 */
public record ClusterSettings(String mode, int workers, long maxKeys, int valueBytes, int tickMillis) {

    /** Checks the fields, naming the bad one. */
    public ClusterSettings {
        if (mode == null || LoadMode.fromLabel(mode) == null) {
            throw new IllegalArgumentException("settings.mode must be bitmap, rw-bitmap, keys, cbase or sequential, got "
                    + (mode == null ? "nothing" : "'" + mode + "'"));
        }
        if (workers < 1 || workers > 1024) {
            throw new IllegalArgumentException("settings.workers must be from 1 to 1024, got " + workers);
        }
        if (maxKeys < 1 || maxKeys > 1_000_000_000L) {
            throw new IllegalArgumentException("settings.maxKeys must be from 1 to 10^9, got " + maxKeys);
        }
        if (valueBytes < 1 || valueBytes > KvLimits.defaults().maxValueBytes()) {
            throw new IllegalArgumentException("settings.valueBytes must be from 1 to " + KvLimits.defaults().maxValueBytes()
                    + ", got " + valueBytes);
        }
        if (tickMillis < 1 || tickMillis > 1000) {
            throw new IllegalArgumentException("settings.tickMillis must be from 1 to 1000, got " + tickMillis);
        }
    }

    /** The mode. */
    public LoadMode loadMode() {
        return LoadMode.fromLabel(mode);
    }

    /** The tick as a duration. */
    public Duration tick() {
        return Duration.ofMillis(tickMillis);
    }

    /** The configuration of replica {@code replicaId}: this mode, workers and store size. */
    public ReplicaConfig replicaConfig(int replicaId) {
        // Chronicle Map is sized for every key plus slack; the load tool's keys are "k<digits>".
        long entries = Math.max(1_000, maxKeys + maxKeys / 4 + 16);
        int keyBytes = Math.max(2, Long.toString(maxKeys).length() + 1);
        return loadMode().configure(ReplicaConfig.builder())
                .replicaId(replicaId)
                .workers(workers)
                .limits(KvLimits.defaults())
                .store(StoreConfig.defaults().sized(entries, keyBytes, valueBytes))
                .build();
    }
}
