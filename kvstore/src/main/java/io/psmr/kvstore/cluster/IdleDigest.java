package io.psmr.kvstore.cluster;

import io.psmr.kvstore.ratis.RatisPeerRuntime;
import java.util.function.LongSupplier;

/**
 * A replica's state digest taken only while it is idle, for {@code cluster status} and for
 * {@code load --cluster}'s comparison. Two replicas' digests are comparable only at the same
 * instance with nothing executing, so a digest is taken when the replica's progress counter has not
 * moved since the previous poll and it is quiet now, and kept only if it was still quiet afterwards;
 * otherwise the status says busy. Used by {@link CheckpointedReplicaRuntime} and {@link RatisPeerRuntime}.
 *
 * <p>Not thread-safe: polled from {@link NodeHost}'s one thread.
 */
public final class IdleDigest {

    /** A check of the replica's state that may wait briefly. */
    @FunctionalInterface
    public interface Check {
        boolean holds() throws InterruptedException;
    }

    private long lastProgress = -1;
    private long digestInstance = -1;
    private Long digest;

    /**
     * One poll.
     *
     * @param progress  moves whenever work reaches the replica (batches delivered, entries applied)
     * @param instance  the instance a digest taken now would describe
     * @param quietNow  nothing executes now, and everything up to {@code instance} has
     * @param compute   the digest
     * @param quietStill nothing arrived while the digest was computed
     * @return the digest at {@link #instance(long)}, or null while busy
     */
    public Long poll(long progress, long instance, Check quietNow, LongSupplier compute, Check quietStill) throws InterruptedException {
        if (progress != lastProgress) {
            lastProgress = progress;
            digest = null; // busy: wait for a quiet poll
        } else if ((digest == null || digestInstance != instance) && quietNow.holds()) {
            long d = compute.getAsLong();
            if (quietStill.holds()) {
                digest = d;
                digestInstance = instance;
            }
        }
        return digest;
    }

    /** The instance to report: the digest's, or {@code current} while there is none. */
    public long instance(long current) {
        return digest == null ? current : digestInstance;
    }
}
