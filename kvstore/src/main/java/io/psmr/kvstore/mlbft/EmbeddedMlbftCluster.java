package io.psmr.kvstore.mlbft;

import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.BroadcastLimits;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.LoopbackPbft;
import io.psmr.ordering.pbft.PbftBroadcast;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftReplicaNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * MLBFT in one JVM (Abid's thesis, chapter 3): P partitions, each ordered by its own PBFT instance, and
 * {@code n = 3f + 1} store replicas that learn all P instances and run them on one worker per partition
 * ({@link MlbftReplica}), never merging the instances into one order. What {@code ./psmr load --ordering mlbft} and
 * {@code ./psmr bench e2e --ordering mlbft} run.
 *
 * <p><b>The instances.</b> Each is a {@link LoopbackPbft} of n replicas with one pillar: psmr's PBFT pillar core,
 * unchanged, as the thesis treats each instance as a black box running classical PBFT. Replica r takes part in every
 * instance, with one thread per instance (the thesis' identities, §3.2.4); the instances share nothing. Each rotates
 * its leader over the replicas, as COP's pillars do, so every replica leads a share of every instance.
 *
 * <p><b>Clients</b> propose through {@link #orderingClient()} (an {@link MlbftProposer}, which spreads each instance's
 * requests over its replicas), and accept a result once {@code f + 1} store replicas answered it alike
 * ({@code ReplyTrust.matching(f(), replicaIds())}), as under PBFT.
 *
 * <p>Thread-safe; close it once.
 */
public final class EmbeddedMlbftCluster implements AutoCloseable {

    /** The thesis' default: P = 4 partitions (§4.3). */
    public static final int DEFAULT_PARTITIONS = 4;

    /**
     * Each instance's checkpoint interval, 4 times PBFT's default: a replica of one instance whose store replica waits
     * on another instance falls that far behind before the others' stable checkpoint passes it (in one JVM there is no
     * state transfer to bring it back).
     */
    public static final int CHECKPOINT_INTERVAL = 4096;

    /** Proposals in flight per instance's PBFT replica. */
    public static final int MAX_PROPOSALS_PER_REPLICA = 1024;

    private final PartitionMap map;
    private final List<LoopbackPbft> instances = new ArrayList<>();
    private final LocalReplyRouter router = new LocalReplyRouter();
    private final List<MlbftReplica> replicas = new ArrayList<>();
    private final MlbftProposer proposer;

    private EmbeddedMlbftCluster(int f, int partitions, ReplicaConfig base) {
        this.map = new PartitionMap(partitions);
        PbftConfig config = config(f, base.limits().maxBatchBytes());
        int n = config.replicaCount();
        try {
            for (int p = 0; p < partitions; p++) {
                instances.add(LoopbackPbft.builder(config)
                        .settings(PbftReplicaNode.Settings.defaults().withThreads(1))
                        .limits(BroadcastLimits.DEFAULTS.withMaxPendingProposals(MAX_PROPOSALS_PER_REPLICA))
                        .keySeed(0x4d4c_4246L + p)
                        .build());
            }
            for (int id = 1; id <= n; id++) {
                StoreConfig store = base.store();
                if (store.path() != null) {
                    store = store.persistedTo(Path.of(store.path() + "." + id));
                }
                int r = id - 1;
                List<PbftBroadcast> learned = instances.stream().map(i -> i.broadcast(r)).toList();
                replicas.add(MlbftReplica.start(base.toBuilder().replicaId(id).store(store).build(), map, learned, router));
            }
            List<List<PbftBroadcast>> entries = instances.stream()
                    .map(i -> IntStream.range(0, n).mapToObj(i::broadcast).toList()).toList();
            this.proposer = new MlbftProposer(0, map, entries, base.detection(), base.limits(), config.maxRequestBytes(),
                    (p, r) -> instances.get(p).node(r).failure().isEmpty());
        } catch (RuntimeException e) {
            replicas.forEach(MlbftReplica::close);
            instances.forEach(LoopbackPbft::close);
            throw e;
        }
    }

    /**
     * Starts P = {@code partitions} PBFT instances of {@code 3f + 1} replicas and a store replica (configured like
     * {@code base}, ids {@code 1..n}) on each replica.
     *
     * @throws IllegalArgumentException if {@code partitions} is not from 1 to {@value PartitionMap#MAX_PARTITIONS}, or
     *                                  {@code base} has a bounded store capacity ({@link MlbftReplica})
     */
    public static EmbeddedMlbftCluster start(int f, int partitions, ReplicaConfig base) {
        return new EmbeddedMlbftCluster(f, partitions, Objects.requireNonNull(base, "base"));
    }

    /**
     * The configuration of every instance: PBFT's {@link PbftConfig#defaults() defaults} with {@code f}, one pillar,
     * checkpoints every {@value #CHECKPOINT_INTERVAL}, rotating leaders, requests large enough for a store batch in
     * its envelope, and a pending-request table for every replica's proposals in flight.
     */
    public static PbftConfig config(int f, int maxBatchBytes) {
        PbftConfig d = PbftConfig.defaults();
        int maxPending = Math.max(d.maxPendingRequests(), MAX_PROPOSALS_PER_REPLICA * (3 * f + 1));
        return new PbftConfig(f, 1, CHECKPOINT_INTERVAL, 2 * CHECKPOINT_INTERVAL, d.requestTimeoutTicks(),
                d.maxViewChangeTimeoutTicks(), d.emptyInstanceDelayTicks(), d.retransmitTicks(), LeaderRotation.ROTATING,
                Math.max(d.maxRequestBytes(), maxBatchBytes + MlbftEnvelope.OVERHEAD), maxPending, d.leaderSelection(),
                d.proposeTimeoutTicks(), d.leaderBackoffInstances());
    }

    /** Faults tolerated by every instance: the {@code f} proxies pass to {@code ReplyTrust.matching}. */
    public int f() {
        return instances.get(0).config().f();
    }

    /** The partitions. */
    public PartitionMap partitions() {
        return map;
    }

    /** Where proxies propose. */
    public OrderingClient orderingClient() {
        return proposer;
    }

    /** The router proxies register their reply channels with. */
    public LocalReplyRouter router() {
        return router;
    }

    /** The store replicas, ids 1..n in order. */
    public List<MlbftReplica> replicas() {
        return List.copyOf(replicas);
    }

    /** The store replicas' ids, 1..n: the replica set of {@code ReplyTrust.matching}. */
    public List<Integer> replicaIds() {
        return IntStream.rangeClosed(1, replicas.size()).boxed().toList();
    }

    /** Partition p's PBFT instance. */
    public LoopbackPbft instance(int p) {
        return instances.get(p);
    }

    /** The highest sequence number any replica of each instance delivered, by partition. */
    public long[] lastInstances() {
        long[] last = new long[instances.size()];
        for (int p = 0; p < last.length; p++) {
            for (int r = 0; r < replicas.size(); r++) {
                last[p] = Math.max(last[p], instances.get(p).broadcast(r).lastInstance());
            }
        }
        return last;
    }

    /** Bytes PBFT replica {@code r} sent, over all instances. */
    public long sentBytes(int r) {
        long sent = 0;
        for (LoopbackPbft i : instances) {
            sent += i.network().sentBytes(r);
        }
        return sent;
    }

    /** Waits until every store replica has run everything any instance ordered. @return false on timeout */
    public boolean awaitQuiescent(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        long[] last = lastInstances();
        for (MlbftReplica r : replicas) {
            if (!r.awaitApplied(last, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }

    /** Each store replica's digest, in id order; compare only after {@link #awaitQuiescent}. */
    public List<Long> digests() {
        return replicas.stream().map(MlbftReplica::digest).toList();
    }

    /** Closes the proposer, the store replicas, then the instances. */
    @Override
    public void close() {
        proposer.close();
        replicas.forEach(MlbftReplica::close);
        instances.forEach(LoopbackPbft::close);
    }
}
