package io.psmr.kvstore.mlbft;

import io.psmr.kvstore.BatchAdmitter;
import io.psmr.kvstore.KvBatch;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvService;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.kvstore.ReplyRouter;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.Subscription;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A replica of the key-value store under MLBFT (Abid's thesis, chapter 3): it learns P ordering instances, one per
 * partition, never merged into one order, and runs what they order on one worker per partition.
 *
 * <h2>Pipeline</h2>
 * <ol>
 *   <li><b>Predict</b> (§3.2.3, on instance p's delivery thread): read the {@link MlbftEnvelope} and its batch, and
 *       compute the batch's partitions ({@link PartitionMap}); a batch that does not decode is taken as partition p's
 *       alone, so that p's worker refuses it. A request not of partition p is refused there ({@code misrouted}).</li>
 *   <li><b>Queue</b> it in partition p's ordered queue (§3.2.4, Algorithm 3.2).</li>
 *   <li><b>Run</b> it on its exec partition's worker once it heads all its queues ({@link MlbftExecutionStage}):
 *       admit its commands in that partition's {@link BatchAdmitter}, execute them in order, answer each.</li>
 * </ol>
 *
 * <h2>Determinism</h2>
 * Each partition has its own admitter, with its own session table (a session is opened in all of them: an
 * OPEN_SESSION is of every partition). Partition p's table sees only the batches whose exec partition is p, in the
 * order of p's queue, which depends only on what the instances ordered; so verdicts, results and the store's
 * {@link #digest() digest} are equal on every replica. The store's capacity guard needs one global order, which MLBFT
 * does not have: a bounded {@link ReplicaConfig#capacity()} is refused.
 *
 * <h2>Threads</h2>
 * One delivery thread per instance (its subscription's), one worker per partition; the public methods may be called
 * from any thread.
 */
public final class MlbftReplica implements AutoCloseable {

    /** Requests each partition's queue holds before its delivery thread blocks. */
    public static final int QUEUE_CAPACITY = 4096;

    private final ReplicaConfig config;
    private final PartitionMap map;
    private final ReplyRouter router;
    private final KvStore store;
    private final BatchAdmitter[] admitters;
    private final MlbftExecutionStage<KvBatchBytes> stage;
    private final List<Subscription> subscriptions = new ArrayList<>();
    private final LongAdder misrouted = new LongAdder();
    private final LongAdder repeated = new LongAdder();
    private final LongAdder unreadable = new LongAdder();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    /** SHA-256 per partition, for its delivery thread: a request's copies match only if their bytes do. */
    private final java.security.MessageDigest[] digests;

    /** A store batch as its instance ordered it, which the exec partition's admitter decodes and runs. */
    private record KvBatchBytes(byte[] bytes) {
    }

    private MlbftReplica(ReplicaConfig config, PartitionMap map, List<? extends AtomicBroadcast> instances,
                         ReplyRouter router) {
        this.config = config;
        this.map = map;
        this.router = router;
        int partitions = map.partitions();
        if (instances.size() != partitions) {
            throw new IllegalArgumentException("MLBFT needs one ordering instance per partition: " + partitions
                    + " partitions, " + instances.size() + " instances");
        }
        if (!config.capacity().equals(StoreCapacity.unbounded())) {
            throw new IllegalArgumentException("an MLBFT replica takes no store capacity (" + config.capacity()
                    + "): the capacity guard decides in one global order, and MLBFT's partitions have none");
        }
        this.digests = new java.security.MessageDigest[partitions];
        for (int p = 0; p < partitions; p++) {
            try {
                digests[p] = java.security.MessageDigest.getInstance("SHA-256");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no SHA-256", e);
            }
        }
        this.store = config.store().open();
        try {
            KvService service = new KvService(store, config.limits());
            service.recount();
            this.admitters = new BatchAdmitter[partitions];
            for (int p = 0; p < partitions; p++) {
                admitters[p] = new BatchAdmitter(config, service, () -> { }, 0);
            }
            this.stage = new MlbftExecutionStage<>(partitions, QUEUE_CAPACITY, this::run,
                    "psmr-mlbft-" + config.replicaId() + "-worker-");
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        try {
            for (int p = 0; p < partitions; p++) {
                int partition = p;
                subscriptions.add(instances.get(p).subscribe(AtomicBroadcast.FIRST_INSTANCE,
                        (instance, value) -> predict(partition, instance, value)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Opens the store, starts the workers, and learns {@code instances} (partition p's ordering instance, as this
     * replica sees it, at index p) from their first instance.
     *
     * @throws IllegalArgumentException if the instances are not one per partition, or the store has a bounded capacity
     */
    public static MlbftReplica start(ReplicaConfig config, PartitionMap map, List<? extends AtomicBroadcast> instances,
                                     ReplyRouter router) {
        return new MlbftReplica(Objects.requireNonNull(config, "config"), Objects.requireNonNull(map, "map"),
                List.copyOf(instances), Objects.requireNonNull(router, "router"));
    }

    /** Instance {@code p}'s delivery thread: predict, refuse or queue. */
    private void predict(int p, long instance, byte[] value) throws InterruptedException {
        MlbftEnvelope envelope;
        try {
            envelope = MlbftEnvelope.decode(value);
        } catch (IllegalArgumentException e) {
            unreadable.increment();
            return;
        }
        int[] partitions;
        int exec;
        try {
            KvBatch batch = KvCodec.decodeBatch(envelope.batch(), config.detection(), config.limits());
            partitions = map.partitionsOf(batch);
            exec = PartitionMap.execPartition(partitions, batch.proxyId(), batch.batchId());
        } catch (KvDecodeException e) {
            partitions = new int[] {p}; // p's worker refuses it, naming why, to the proxy in its header if readable
            exec = p;
        }
        PartitionQueues.Key key = new PartitionQueues.Key(envelope.id(), digests[p].digest(value));
        switch (stage.deliver(p, key, instance, partitions, exec, new KvBatchBytes(envelope.batch()))) {
            case NOT_OF_PARTITION -> misrouted.increment();
            case REPEATED -> repeated.increment();
            case QUEUED -> { }
        }
    }

    /** A worker runs a request that heads all its queues, in its exec partition's admitter. */
    private void run(PartitionQueues.Request<KvBatchBytes> r) throws InterruptedException {
        int h = r.execPartition;
        BatchAdmitter admitter = admitters[h];
        BatchAdmitter.Verdict v = admitter.admit(clock(r, h), r.payload.bytes());
        if (v instanceof BatchAdmitter.Refused refused) {
            refused.replies().forEach(router::route);
            return;
        }
        BatchAdmitter.Admitted admitted = (BatchAdmitter.Admitted) v;
        long[] opened = admitter.runInOrder(admitted, router::route);
        admitter.handedOver(clock(r, h));
        for (long session : opened) {
            for (int q : r.partitions) {
                if (q != h) {
                    admitters[q].adoptSession(session, clock(r, q));
                }
            }
        }
    }

    /**
     * Partition {@code p}'s clock at request {@code r}: where p's instance ordered it, interleaved with the other
     * partitions' so that session ids made from it are unique.
     */
    private long clock(PartitionQueues.Request<?> r, int p) {
        return r.instanceIn(p) * map.partitions() + p;
    }

    /** The replica's id, as in its replies. */
    public int id() {
        return config.replicaId();
    }

    /** The partitions. */
    public PartitionMap partitions() {
        return map;
    }

    /** The store's digest; compare across replicas only after {@link #awaitApplied}. */
    public long digest() {
        return store.digest();
    }

    /** The store, for reading after {@link #awaitApplied}; do not write. */
    public KvStore store() {
        return store;
    }

    /**
     * Waits until partition p's instance has delivered up to {@code last[p]} for every p, and everything delivered has
     * run. @return false on timeout, or if the replica stopped
     */
    public boolean awaitApplied(long[] last, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (int p = 0; p < subscriptions.size(); p++) {
            if (!subscriptions.get(p).awaitDelivered(last[p], Math.max(0, deadline - System.nanoTime()),
                    TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return stage.awaitIdle(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** The execution stage's counters. */
    public MlbftStats mlbftStats() {
        return stage.stats(misrouted.sum(), repeated.sum(), unreadable.sum());
    }

    /** The admitters' counters, summed over the partitions ({@code lastInstance}: the highest partition clock). */
    public ReplicaStats stats() {
        long[] s = new long[11];
        for (BatchAdmitter a : admitters) {
            ReplicaStats r = a.stats();
            s[0] += r.batchesDelivered();
            s[1] += r.batchesRefused();
            s[2] += r.refusalsUnaddressed();
            s[3] += r.commandsExecuted();
            s[4] += r.duplicates();
            s[5] += r.staleRequests();
            s[6] += r.commandsTooLarge();
            s[7] += r.commandsFull();
            s[8] += r.sessionsOpened();
            s[9] += r.sessionRefusals();
            s[10] = Math.max(s[10], r.lastInstance());
        }
        return new ReplicaStats(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]);
    }

    /** What stopped the replica, if something did. */
    public Optional<Throwable> failure() {
        Optional<Throwable> f = stage.failure();
        for (Subscription s : subscriptions) {
            f = f.or(s::failure);
        }
        return f;
    }

    /** Stops delivery, lets the workers finish what they run, closes the store. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stage.close(); // first: a delivery thread waiting for room then ends its subscription
        subscriptions.forEach(Subscription::close);
        store.close();
    }

    @Override
    public String toString() {
        return "MlbftReplica[" + config.replicaId() + ", " + map.partitions() + " partitions, " + mlbftStats() + "]";
    }
}
