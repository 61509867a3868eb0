package io.psmr.kvstore.ratis;

import io.psmr.kvstore.AdmittedCommand;
import io.psmr.kvstore.BatchAdmitter;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvService;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.ordering.ratis.BatchCodec;
import io.psmr.ordering.ratis.Outcome;
import io.psmr.ordering.ratis.PsmrStateMachine;
import io.psmr.ordering.ratis.Snapshotter;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Scheduler;
import io.psmr.scheduler.SchedulerBuilder;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.ratis.statemachine.StateMachine;

/**
 * A replica of the key-value store behind Apache Ratis: the first user of {@link PsmrStateMachine}.
 * Ratis orders the batches; this replica decodes, verifies and admits each committed entry as the
 * {@link Replica} does for psmr's own ordering, executes it through the scheduler and the
 * {@link KvService}, and answers the batch's {@link KvReply replies} as the entry's Ratis reply
 * ({@link KvCodec#encodeReplies}), which the leader returns to the proposing proxy.
 *
 * <h2>Exactly-once</h2>
 * Admission runs on Ratis' updater thread in log order, through the same {@link BatchAdmitter}
 * as {@link Replica} (sessions, limits, capacity, answers, counters): a proxy's retry (a new log entry with the same
 * session and request sequences) is answered from the session table, never executed twice. The
 * table is part of the snapshot, so a replica that loads a snapshot decides duplicates, session
 * expiry and capacity exactly as one that applied the whole log.
 *
 * <h2>Snapshot content</h2>
 * The store's entries, the store's {@link StateDigest} (checked on loading), the session table, and
 * the capacity guard's state (so a replica that loads a snapshot refuses exactly what the others do).
 *
 * <h2>Threads</h2>
 * Ratis owns the updater thread; the replica owns its scheduler's workers. {@link #digest()} and
 * {@link #store()} are meaningful only while nothing executes (after {@link #appliedIndex()} has
 * reached the last entry and no load runs). Close the Ratis server first, then the replica.
 */
public final class RatisReplica implements AutoCloseable {

    private final ReplicaConfig config;
    private final KvStore store;
    private final KvService service;
    private final BatchAdmitter admitter;
    private final PsmrStateMachine<AdmittedCommand, KvResult> stateMachine;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LongAdder snapshotsLoaded = new LongAdder();

    private RatisReplica(ReplicaConfig config) {
        this.config = config;
        this.store = config.store().open();
        this.service = new KvService(store, config.limits());
        service.recount();
        this.admitter = new BatchAdmitter(config, service, this::quiesce, 0);
        SchedulerBuilder<AdmittedCommand, KvResult> b = Scheduler.<AdmittedCommand, KvResult>builder(admitter::execute)
                .detection(config.detection())
                .graph(config.graph())
                .workers(config.workers())
                .maxPending(config.maxPending())
                .verifySummaries(false) // verified in decode, before admission, as Replica does
                .threadNamePrefix("psmr-ratis-replica-" + config.replicaId() + "-worker-");
        if (config.sequential()) {
            b.sequential();
        }
        this.stateMachine = new PsmrStateMachine<>(b, new Codec(), new StoreSnapshotter());
    }

    /**
     * Opens the store and builds the state machine; hand {@link #stateMachine()} to one Ratis server.
     * {@link ReplicaConfig#fromInstance()} is ignored: Ratis decides where applying starts.
     */
    public static RatisReplica create(ReplicaConfig config) {
        return new RatisReplica(Objects.requireNonNull(config, "config"));
    }

    /** The replica's id, as in its replies. */
    public int id() {
        return config.replicaId();
    }

    /** The state machine to give the Ratis server. */
    public StateMachine stateMachine() {
        return stateMachine;
    }

    /** The highest log index up to which every entry has executed. */
    public long appliedIndex() {
        return stateMachine.appliedIndex();
    }

    /** How many snapshots this replica has loaded (on restart, or installed from the leader). */
    public long snapshotsLoaded() {
        return snapshotsLoaded.sum();
    }

    /**
     * A snapshot of the replica's counters, kept as {@link Replica#stats()} keeps them. Instances are log indexes;
     * a replica that loaded a snapshot counts only what it applied since it started.
     */
    public ReplicaStats stats() {
        return admitter.stats();
    }

    /** Key-plus-value bytes the store holds now, as {@link StoreCapacity} counts them. Any thread. */
    public long storedBytes() {
        return service.usedBytes();
    }

    /** The scheduler's counters, or null before Ratis initialised the state machine. Any thread. */
    public io.psmr.scheduler.SchedulerMetrics schedulerMetrics() {
        return stateMachine.schedulerMetrics();
    }

    /** The {@link StateDigest} of the store; compare only while nothing executes. */
    public long digest() {
        return store.digest();
    }

    /** The store, for reading while nothing executes; do not write. */
    public KvStore store() {
        return store;
    }

    /** Closes the store; close the Ratis server (which closes the state machine) first. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                stateMachine.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                store.close();
            }
        }
    }

    @Override
    public String toString() {
        return "RatisReplica[" + config.replicaId() + ", applied " + appliedIndex() + ", " + store + "]";
    }

    /** Waits until every entry handed to the scheduler has executed (the capacity guard's quiescer; updater thread). */
    private void quiesce() throws InterruptedException {
        stateMachine.awaitExecuted();
    }

    /** Log entries to admitted batches, outcomes to replies. */
    private final class Codec implements BatchCodec<AdmittedCommand, KvResult> {

        @Override
        public Decoded<AdmittedCommand> decode(long index, byte[] entry) {
            BatchAdmitter.Verdict v;
            try {
                v = admitter.admit(index, entry);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while admitting log entry " + index, e);
            }
            if (v instanceof BatchAdmitter.Refused r) {
                return Decoded.refuse(KvCodec.encodeReplies(r.replies()));
            }
            admitter.handedOver(index); // the state machine delivers it to the scheduler next
            return Decoded.execute(((BatchAdmitter.Admitted) v).batch());
        }

        /** The scheduler refused a decoded batch: answered as a refusal in {@link #decode} is ({@link BatchAdmitter#refuseScheduled}). */
        @Override
        public byte[] refusal(Batch<AdmittedCommand> batch, String reason) {
            return KvCodec.encodeReplies(admitter.refuseScheduled(batch, reason));
        }

        @Override
        public CompletableFuture<byte[]> reply(Batch<AdmittedCommand> batch, List<Outcome<KvResult>> outcomes) {
            int n = batch.size();
            @SuppressWarnings("unchecked")
            CompletableFuture<KvReply>[] replies = new CompletableFuture[n];
            for (int i = 0; i < n; i++) {
                AdmittedCommand c = batch.commands().get(i);
                Outcome<KvResult> o = outcomes.get(i);
                CompletableFuture<KvReply> f = new CompletableFuture<>();
                replies[i] = f;
                // A duplicate's original may still be executing in a batch that does not conflict: f completes then.
                if (o.ok()) {
                    admitter.answer(batch.instance(), i, c, o.result(), f::complete);
                } else {
                    admitter.answerError(batch.instance(), i, c, o.error(), f::complete);
                }
            }
            return CompletableFuture.allOf(replies).thenApply(v -> {
                List<KvReply> answers = new ArrayList<>(n);
                for (CompletableFuture<KvReply> f : replies) {
                    answers.add(f.join());
                }
                return KvCodec.encodeReplies(answers);
            });
        }
    }

    /** The store and the session table to and from a snapshot file. */
    private final class StoreSnapshotter implements Snapshotter {

        @Override
        public void save(OutputStream os) throws IOException {
            DataOutputStream out = new DataOutputStream(os);
            out.writeLong(store.size());
            IOException[] failure = new IOException[1];
            StateDigest digest = new StateDigest();
            store.forEach((k, v) -> {
                if (failure[0] != null) {
                    return;
                }
                try {
                    out.writeInt(k.length);
                    out.write(k);
                    out.writeInt(v.length);
                    out.write(v);
                    digest.add(k, v);
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            out.writeLong(digest.value());
            admitter.sessions().writeTo(out);
            admitter.capacity().writeTo(out);
            out.flush();
        }

        @Override
        public void restore(InputStream is) throws IOException {
            DataInputStream in = new DataInputStream(is);
            List<byte[]> keys = new ArrayList<>();
            store.forEach((k, v) -> keys.add(k.clone())); // the store may reuse the array it hands out
            for (byte[] k : keys) {
                store.remove(k);
            }
            long n = in.readLong();
            if (n < 0) {
                throw new IOException("the snapshot claims " + n + " entries");
            }
            for (long i = 0; i < n; i++) {
                byte[] k = read(in, config.limits().maxKeyBytes(), "key");
                byte[] v = read(in, config.limits().maxValueBytes(), "value");
                store.put(k, v);
            }
            long expected = in.readLong();
            long actual = store.digest();
            if (expected != actual) {
                throw new IOException("the restored store's digest " + StateDigest.hex(actual)
                        + " differs from the snapshot's " + StateDigest.hex(expected));
            }
            admitter.sessions().readFrom(in);
            admitter.capacity().readFrom(in);
            service.recount();
            snapshotsLoaded.increment();
        }

        private byte[] read(DataInputStream in, int max, String what) throws IOException {
            int len = in.readInt();
            if (len < 0 || len > max) {
                throw new IOException("a snapshot " + what + " claims " + len + " bytes; the limit is " + max);
            }
            byte[] b = new byte[len];
            in.readFully(b);
            return b;
        }
    }
}
