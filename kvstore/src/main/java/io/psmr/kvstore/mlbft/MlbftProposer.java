package io.psmr.kvstore.mlbft;

import io.psmr.kvstore.KvBatch;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvLimits;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OverloadedException;
import io.psmr.scheduler.ConflictDetection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * MLBFT's client side (thesis §3.2.2 and §3.2.3): predicts a batch's partitions and has every one of their instances
 * order it, wrapped in an {@link MlbftEnvelope} with an id of its own. An {@link OrderingClient}, so a store proxy
 * proposes through it as through any ordering.
 *
 * <p><b>Entries.</b> Request {@code k} enters partition p's instance through replica {@code (k + p) mod n}, as the
 * thesis' many clients each reach the instances through replicas of their own: an instance then orders requests from
 * several entries in an order of its own, so two instances may order two cross-border requests oppositely, and the
 * replicas meet the deadlocks the thesis resolves (§3.2.8). Through one entry per instance, every instance would order
 * one proposer's requests in the order it proposed them.
 *
 * <p><b>All or nothing, eventually.</b> A cross-border request ordered by some of its instances and not the others
 * would stop their queues for good, so a proposal refused by one instance as overloaded is offered to it again
 * (after 1 ms, doubling up to 64 ms), one that an instance has not ordered within 2 s is offered again through its
 * next serving replica (the entry may have stopped), until it is ordered or the proposer closes; the proposal's future
 * completes, with {@link #UNKNOWN_INSTANCE}, once every instance ordered it. A value that is not a batch goes to partition 0's instance
 * alone, whose replicas refuse it.
 *
 * <p>Thread-safe; futures complete on the instances' threads or the retry timer.
 */
public final class MlbftProposer implements OrderingClient {

    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(64);

    private final long proposerId;
    private final PartitionMap map;
    private final List<? extends List<? extends OrderingClient>> instances;
    private final ConflictDetection detection;
    private final KvLimits limits;
    private final int maxValueBytes;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ScheduledThreadPoolExecutor retries;
    private final Serving serving;

    /** Whether replica {@code replica} of partition {@code partition}'s instance still takes proposals. */
    @FunctionalInterface
    public interface Serving {
        /** True if the entry serves; a proposer skips one that does not. */
        boolean serving(int partition, int replica);
    }

    /** How long an instance may take to order a request before it is offered again through the next replica. */
    static final long REOFFER_NANOS = TimeUnit.SECONDS.toNanos(2);

    /**
     * @param proposerId    makes the ids of this proposer's requests unique among all proposers', 0 to 2^23 - 1
     * @param instances     where partition p's instance takes proposals, at index p: one entry per replica of it
     * @param maxValueBytes the largest batch the instances take once wrapped
     * @param serving       which entries still take proposals
     */
    public MlbftProposer(long proposerId, PartitionMap map, List<? extends List<? extends OrderingClient>> instances,
                         ConflictDetection detection, KvLimits limits, int maxValueBytes, Serving serving) {
        if (proposerId < 0 || proposerId >= 1L << 23) {
            throw new IllegalArgumentException("proposer id must be from 0 to 2^23 - 1, got " + proposerId);
        }
        if (instances.size() != map.partitions()) {
            throw new IllegalArgumentException(map.partitions() + " partitions need as many instances, got " + instances.size());
        }
        this.proposerId = proposerId;
        this.serving = java.util.Objects.requireNonNull(serving, "serving");
        this.map = map;
        this.instances = instances.stream().map(List::copyOf).toList();
        if (this.instances.stream().anyMatch(List::isEmpty)) {
            throw new IllegalArgumentException("every instance needs at least one entry");
        }
        this.detection = detection;
        this.limits = limits;
        this.maxValueBytes = maxValueBytes - MlbftEnvelope.OVERHEAD;
        this.retries = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "psmr-mlbft-proposer-" + proposerId + "-retry");
            t.setDaemon(true);
            return t;
        });
        retries.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void start() {
        if (closed.get()) {
            throw new IllegalStateException("the MLBFT proposer is closed");
        }
    }

    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("cannot propose a null value");
        }
        if (value.length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the " + maxValueBytes
                    + " bytes an MLBFT request may carry");
        }
        if (closed.get()) {
            return CompletableFuture.failedFuture(new BroadcastClosedException("the MLBFT proposer is closed"));
        }
        int[] partitions;
        try {
            KvBatch batch = KvCodec.decodeBatch(value, detection, limits);
            partitions = map.partitionsOf(batch);
        } catch (KvDecodeException e) {
            partitions = new int[] {0};
        }
        long id = proposerId << 40 | (sequence.incrementAndGet() & ((1L << 40) - 1));
        byte[] envelope = new MlbftEnvelope(id, value).encode();
        CompletableFuture<?>[] ordered = new CompletableFuture<?>[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            CompletableFuture<Long> f = new CompletableFuture<>();
            ordered[i] = f;
            offer(partitions[i], (int) Math.floorMod(id + partitions[i], (long) instances.get(partitions[i]).size()),
                    envelope, f, FIRST_RETRY_NANOS);
        }
        return CompletableFuture.allOf(ordered).thenApply(x -> UNKNOWN_INSTANCE);
    }

    /**
     * Offers {@code envelope} to partition {@code p}'s instance through its first serving replica from {@code entry} on;
     * again after {@code backoff} if refused as overloaded, and through the next replica if not ordered within
     * {@link #REOFFER_NANOS} (a copy ordered twice is refused as repeated by every replica).
     */
    private void offer(int p, int entry, byte[] envelope, CompletableFuture<Long> done, long backoff) {
        if (done.isDone()) {
            return;
        }
        if (closed.get()) {
            done.completeExceptionally(new BroadcastClosedException("the MLBFT proposer closed before every instance"
                    + " ordered the request"));
            return;
        }
        List<? extends OrderingClient> entries = instances.get(p);
        int r = entry;
        for (int i = 0; i < entries.size() && !serving.serving(p, r); i++) {
            r = (r + 1) % entries.size();
        }
        int at = r;
        CompletableFuture<Long> f;
        try {
            f = entries.get(at).propose(envelope);
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
            return;
        }
        // Only a proposal the entry still holds is offered again: whatever answer comes first cancels that.
        java.util.concurrent.Future<?> reoffer = schedule(() -> offer(p, (at + 1) % entries.size(), envelope, done,
                FIRST_RETRY_NANOS), REOFFER_NANOS, done);
        f.whenComplete((instanceNumber, error) -> {
            if (reoffer != null) {
                reoffer.cancel(false);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause == null) {
                done.complete(instanceNumber);
            } else if (cause instanceof OverloadedException) {
                schedule(() -> offer(p, at, envelope, done, Math.min(MAX_RETRY_NANOS, 2 * backoff)), backoff, done);
            } else if (!(cause instanceof BroadcastClosedException) || closed.get()) {
                done.completeExceptionally(cause);
            }
            // A closed entry (its replica stopped): the re-offer through the next one takes over.
        });
    }

    /** Schedules {@code task}; if the proposer is closing, fails {@code done} instead and returns null. */
    private java.util.concurrent.Future<?> schedule(Runnable task, long delayNanos, CompletableFuture<Long> done) {
        try {
            return retries.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            done.completeExceptionally(new BroadcastClosedException("the MLBFT proposer closed before every instance"
                    + " ordered the request"));
            return null;
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            retries.shutdownNow();
        }
    }
}
