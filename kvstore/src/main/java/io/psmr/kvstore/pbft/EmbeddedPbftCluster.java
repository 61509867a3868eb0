package io.psmr.kvstore.pbft;

import io.psmr.ordering.BroadcastLimits;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.LoopbackPbft;
import io.psmr.ordering.pbft.PbftBroadcast;
import io.psmr.ordering.pbft.PbftConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * A replicated store over PBFT with COP pillars in one JVM: a {@link LoopbackPbft} of {@code n = 3f + 1} PBFT
 * replicas and, beside each, a store {@link Replica} that subscribes to <em>its own</em> PBFT replica's
 * {@link PbftBroadcast} (store replica {@code i + 1} on PBFT replica {@code i}), all replying through one
 * {@link LocalReplyRouter}. What {@code ./psmr load --ordering pbft} and {@code ./psmr bench e2e} run.
 *
 * <p>Under Byzantine faults a client must not believe one reply: proxies of this cluster are configured with
 * {@code ReplyTrust.matching(f(), replicaIds())} (client-proxy), so that a result counts only once {@code f + 1}
 * store replicas answered it alike. Proxies propose through {@link #broadcast()} (PBFT replica 0's entry; the
 * request reaches the others as a PBFT client request does, and with rotating leaders any replica may order it).
 *
 * <p>Thread-safe; close it once.
 */
public final class EmbeddedPbftCluster implements AutoCloseable {

    /** Proposals in flight per PBFT replica's broadcast, as in {@link BroadcastLimits#DEFAULTS}. */
    public static final int MAX_PROPOSALS_PER_REPLICA = 1024;

    private final LoopbackPbft pbft;
    private final LocalReplyRouter router = new LocalReplyRouter();
    private final List<Replica> replicas;

    private EmbeddedPbftCluster(LoopbackPbft.Builder builder, ReplicaConfig base) {
        this.pbft = builder.build();
        int n = pbft.config().replicaCount();
        List<Replica> started = new ArrayList<>(n);
        try {
            for (int id = 1; id <= n; id++) {
                StoreConfig store = base.store();
                if (store.path() != null) {
                    store = store.persistedTo(Path.of(store.path() + "." + id));
                }
                started.add(Replica.start(base.toBuilder().replicaId(id).store(store).build(), pbft.broadcast(id - 1), router));
            }
        } catch (RuntimeException e) {
            started.forEach(Replica::close);
            pbft.close();
            throw e;
        }
        this.replicas = List.copyOf(started);
    }

    /**
     * Starts a PBFT cluster built by {@code pbft} and one store replica (configured like {@code base}, ids
     * {@code 1..n}) on each of its replicas.
     *
     * @throws IllegalArgumentException if a store batch ({@link KvLimits#maxBatchBytes()}) could exceed the PBFT
     *                                  request limit ({@link PbftConfig#maxRequestBytes()}), or as the builder
     */
    public static EmbeddedPbftCluster start(LoopbackPbft.Builder pbft, PbftConfig config, ReplicaConfig base) {
        Objects.requireNonNull(pbft, "pbft");
        Objects.requireNonNull(base, "base");
        if (base.limits().maxBatchBytes() > config.maxRequestBytes()) {
            throw new IllegalArgumentException("a store batch may take " + base.limits().maxBatchBytes()
                    + " bytes but PBFT requests are limited to " + config.maxRequestBytes() + " bytes (maxRequestBytes)");
        }
        return new EmbeddedPbftCluster(pbft, base);
    }

    /** As {@link #start(LoopbackPbft.Builder, PbftConfig, ReplicaConfig)} with the builder's other defaults. */
    public static EmbeddedPbftCluster start(PbftConfig config, ReplicaConfig base) {
        return start(LoopbackPbft.builder(config)
                .limits(BroadcastLimits.DEFAULTS.withMaxPendingProposals(MAX_PROPOSALS_PER_REPLICA)), config, base);
    }

    /**
     * PBFT's {@link PbftConfig#defaults() defaults} with {@code f}, {@code pillars} and {@code rotation}, and a
     * pending-request table large enough for every replica's proposals in flight ({@value #MAX_PROPOSALS_PER_REPLICA}
     * each, {@link LoopbackPbft}'s default; its builder checks this).
     */
    public static PbftConfig config(int f, int pillars, LeaderRotation rotation) {
        PbftConfig d = PbftConfig.defaults();
        int maxPending = Math.max(d.maxPendingRequests(), MAX_PROPOSALS_PER_REPLICA * (3 * f + 1));
        return new PbftConfig(f, pillars, d.checkpointInterval(), d.watermarkWindow(), d.requestTimeoutTicks(),
                d.maxViewChangeTimeoutTicks(), d.emptyInstanceDelayTicks(), d.retransmitTicks(), rotation,
                d.maxRequestBytes(), maxPending, d.leaderSelection(), d.proposeTimeoutTicks(), d.leaderBackoffInstances());
    }

    /** The PBFT cluster (its broadcasts, nodes and network counters). */
    public LoopbackPbft pbft() {
        return pbft;
    }

    /** Faults tolerated: the {@code f} proxies must pass to {@code ReplyTrust.matching}. */
    public int f() {
        return pbft.config().f();
    }

    /** Where proxies propose: PBFT replica 0's broadcast. */
    public AtomicBroadcast broadcast() {
        return pbft.broadcast(0);
    }

    /** The router proxies register their reply channels with. */
    public LocalReplyRouter router() {
        return router;
    }

    /** The store replicas, ids 1..n in order; replica {@code id} executes PBFT replica {@code id - 1}'s order. */
    public List<Replica> replicas() {
        return replicas;
    }

    /** The store replicas' ids, 1..n: the replica set of {@code ReplyTrust.matching}. */
    public List<Integer> replicaIds() {
        return IntStream.rangeClosed(1, replicas.size()).boxed().toList();
    }

    /** The highest instance any PBFT replica has delivered. */
    public long lastInstance() {
        long last = 0;
        for (int i = 0; i < replicas.size(); i++) {
            last = Math.max(last, pbft.broadcast(i).lastInstance());
        }
        return last;
    }

    /**
     * Waits until every store replica has applied every instance any PBFT replica delivered (the replicas deliver
     * the same sequence, each at its own pace). @return false on timeout
     */
    public boolean awaitQuiescent(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        long last = lastInstance();
        for (Replica r : replicas) {
            if (!r.awaitApplied(last, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }

    /** Each store replica's digest, in id order; compare only after {@link #awaitQuiescent}. */
    public List<Long> digests() {
        List<Long> d = new ArrayList<>(replicas.size());
        for (Replica r : replicas) {
            d.add(r.digest());
        }
        return d;
    }

    /** Closes the store replicas (finishing what they hold), then the PBFT cluster. */
    @Override
    public void close() {
        replicas.forEach(Replica::close);
        pbft.close();
    }
}
