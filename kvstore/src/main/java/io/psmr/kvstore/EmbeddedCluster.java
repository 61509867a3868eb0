package io.psmr.kvstore;

import io.psmr.ordering.LocalSequencer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A whole replicated store in one JVM: one {@link LocalSequencer}, one {@link LocalReplyRouter},
 * and N {@link Replica replicas} with ids 1..N, each with its own scheduler and store. What
 * {@code ./psmr load} runs when no cluster is named, and what the tests run.
 *
 * <p>Proxies propose to {@link #broadcast()} and register their {@link ReplyChannel} with
 * {@link #router()}. Thread-safe; close it once.
 */
public final class EmbeddedCluster implements AutoCloseable {

    private final LocalSequencer sequencer;
    private final LocalReplyRouter router = new LocalReplyRouter();
    private final List<Replica> replicas;

    private EmbeddedCluster(int n, ReplicaConfig base, LocalSequencer.Builder sequencerBuilder) {
        this.sequencer = sequencerBuilder.build();
        List<Replica> started = new ArrayList<>(n);
        try {
            for (int id = 1; id <= n; id++) {
                StoreConfig store = base.store();
                if (store.path() != null) {
                    store = store.persistedTo(Path.of(store.path() + "." + id));
                }
                started.add(Replica.start(base.toBuilder().replicaId(id).store(store).build(), sequencer, router));
            }
        } catch (RuntimeException e) {
            started.forEach(Replica::close);
            sequencer.close();
            throw e;
        }
        this.replicas = List.copyOf(started);
        sequencer.start();
    }

    /**
     * Starts {@code n} replicas configured like {@code base} (ids 1..n; a persisted store gets the
     * suffix {@code .id} on its path) over a sequencer whose maximum value fits the largest batch.
     */
    public static EmbeddedCluster start(int n, ReplicaConfig base) {
        return start(n, base, LocalSequencer.builder().maxValueBytes(base.limits().maxBatchBytes()));
    }

    /** As {@link #start(int, ReplicaConfig)}, with a sequencer configured by {@code sequencer}. */
    public static EmbeddedCluster start(int n, ReplicaConfig base, LocalSequencer.Builder sequencer) {
        if (n < 1) {
            throw new IllegalArgumentException("a cluster needs at least 1 replica, got " + n);
        }
        return new EmbeddedCluster(n, Objects.requireNonNull(base, "base"), Objects.requireNonNull(sequencer, "sequencer"));
    }

    /** The ordering layer proxies propose to. */
    public LocalSequencer broadcast() {
        return sequencer;
    }

    /** The router proxies register their reply channels with. */
    public LocalReplyRouter router() {
        return router;
    }

    /** The replicas, ids 1..n in order. */
    public List<Replica> replicas() {
        return replicas;
    }

    /** Waits until every replica has applied every instance up to {@code instance}. @return false on timeout */
    public boolean awaitApplied(long instance, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (Replica r : replicas) {
            if (!r.awaitApplied(instance, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }

    /** Waits until every replica has applied everything ordered so far. @return false on timeout */
    public boolean awaitQuiescent(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitApplied(sequencer.lastInstance(), timeout, unit);
    }

    /** Each replica's digest, in id order; compare only after {@link #awaitApplied}. */
    public List<Long> digests() {
        List<Long> d = new ArrayList<>(replicas.size());
        for (Replica r : replicas) {
            d.add(r.digest());
        }
        return d;
    }

    /** Closes the replicas (finishing what they hold), then the sequencer. */
    @Override
    public void close() {
        replicas.forEach(Replica::close);
        sequencer.close();
    }
}
