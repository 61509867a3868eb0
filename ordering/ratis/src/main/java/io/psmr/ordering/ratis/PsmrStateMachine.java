package io.psmr.ordering.ratis;

import io.psmr.scheduler.AppliedIndex;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.CommandError;
import io.psmr.scheduler.ResultSink;
import io.psmr.scheduler.Scheduler;
import io.psmr.scheduler.SchedulerBuilder;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * psmr as the execution layer of an Apache Ratis server: a Ratis {@code StateMachine} that hands
 * each committed log entry, a psmr batch, to a psmr {@link Scheduler} in log order, so that entries
 * whose batches do not conflict execute in parallel. Generic over the application: a
 * {@link BatchCodec} turns entries into batches and outcomes into replies, a {@link Snapshotter}
 * writes and reads the replicated state.
 *
 * <h2>How it keeps Ratis' contract</h2>
 * <ul>
 *   <li><b>Order.</b> Ratis calls {@link #applyTransaction} on its updater thread, one entry at a
 *       time in log order; the entry's log index becomes the batch's instance, so conflicting
 *       batches execute in log order on every replica, and the outcome depends only on the log.</li>
 *   <li><b>Reply.</b> {@code applyTransaction} returns at once (after admission to the scheduler,
 *       which blocks while {@code maxPending} batches are pending: that is back-pressure on Ratis'
 *       updater). Its future completes with the codec's reply once every command of the batch has
 *       executed; Ratis sends it to the submitting client from the leader.</li>
 *   <li><b>Applied index.</b> Batches complete out of log order, so the index reported through
 *       {@link #getLastAppliedTermIndex()} advances only over a gap-free run of executed entries ({@link AppliedIndex})
 *       (entries without a batch — Ratis' configuration and metadata entries, refused entries —
 *       count as executed at once, but only behind the batches before them). It never runs ahead
 *       of what has executed.</li>
 *   <li><b>Snapshots.</b> {@link #takeSnapshot()} runs on the updater thread, so no entry is admitted
 *       while it runs; it waits until the scheduler is idle (the applied index then equals the last
 *       admitted entry), writes the applied term-index and the {@link Snapshotter}'s state to one
 *       file of Ratis' {@link SimpleStateMachineStorage} with its MD5, and returns; admission resumes
 *       when the updater goes on. A restarting server loads the latest snapshot in
 *       {@link #initialize} and Ratis replays the log after it; a follower behind the leader's purged
 *       log receives the leader's snapshot file from Ratis and loads it in {@link #reinitialize}.</li>
 *   <li><b>Queries</b> ({@link #query}) answer the applied index only: reading the state outside
 *       the log would see a replica-local, partly executed prefix, so reads are commands.</li>
 *   <li><b>Leader changes</b> need nothing: every replica executes every entry; only the leader's
 *       reply reaches the client, and a client retry after a leader change is a new entry that the
 *       application deduplicates (the kvstore by client id and request sequence).</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * Ratis' updater thread calls {@code applyTransaction}, {@code takeSnapshot}, {@code reinitialize}
 * and the term-index notifications; the scheduler's workers execute and complete batches; any
 * thread may call {@link #appliedIndex()} and {@link #query}. Fail-stop: if the scheduler stops
 * (see {@link Scheduler#failure()}), later entries fail and the applied index stops, so the server
 * never reports as applied what it could not execute.
 *
 * @param <C> the command type
 * @param <R> the result type
 */
public class PsmrStateMachine<C extends Command, R> extends BaseStateMachine {

    private static final Logger LOG = LoggerFactory.getLogger(PsmrStateMachine.class);

    /** First bytes of a snapshot file written by this class ("psmR"), then a format version. */
    static final int SNAPSHOT_MAGIC = 0x70736d52;
    static final int SNAPSHOT_VERSION = 1;

    private final SchedulerBuilder<C, R> schedulerBuilder;
    private final BatchCodec<C, R> codec;
    private final Snapshotter snapshotter;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    /** Tells Ratis each advance, in increasing order, while the applied index is locked. */
    private final AppliedIndex applied = new AppliedIndex(this::updateLastAppliedTermIndex);
    private final ConcurrentHashMap<Long, Running<C, R>> running = new ConcurrentHashMap<>();
    private volatile Scheduler<C, R> scheduler;

    /**
     * @param scheduler   the scheduler's settings over the application's service; the adapter sets its
     *                    result sink and starts it in {@link #initialize}
     * @param codec       turns entries into batches and outcomes into replies
     * @param snapshotter writes and reads the application's state
     */
    public PsmrStateMachine(SchedulerBuilder<C, R> scheduler, BatchCodec<C, R> codec, Snapshotter snapshotter) {
        this.schedulerBuilder = Objects.requireNonNull(scheduler, "scheduler");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.snapshotter = Objects.requireNonNull(snapshotter, "snapshotter");
    }

    /** A batch admitted to the scheduler and not yet complete: its outcomes so far and its reply. */
    private static final class Running<C extends Command, R> {
        final long term;
        final Outcome<R>[] outcomes;
        final CompletableFuture<Message> reply = new CompletableFuture<>();

        @SuppressWarnings("unchecked")
        Running(long term, int size) {
            this.term = term;
            this.outcomes = (Outcome<R>[]) new Outcome<?>[size];
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        getLifeCycle().transition(LifeCycle.State.STARTING);
        storage.init(raftStorage);
        if (scheduler == null) {
            scheduler = schedulerBuilder.resultSink(new Sink()).start();
        }
        applied.reset(0, -1);
        load(storage.loadLatestSnapshot());
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    /**
     * Ratis pauses the state machine when a leader's snapshot has been installed in its storage,
     * then calls {@link #reinitialize} on the updater thread (it checks the state is PAUSED).
     */
    @Override
    public void pause() {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    /** Loads the snapshot Ratis installed, once what was admitted before it has executed. */
    @Override
    public void reinitialize() throws IOException {
        quiesce();
        load(storage.loadLatestSnapshot());
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /** Executes what was admitted, then stops the scheduler. */
    @Override
    public void close() throws IOException {
        Scheduler<C, R> s = scheduler;
        if (s != null) {
            s.close();
        }
        super.close();
    }

    // ---------------------------------------------------------------- applying

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        long term = entry.getTerm();
        long index = entry.getIndex();
        byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
        BatchCodec.Decoded<C> decoded;
        try {
            decoded = codec.decode(index, data);
        } catch (RuntimeException e) {
            // A codec must refuse bad input, not throw; a throw is a defect: do not report the entry applied.
            LOG.error("codec threw decoding log entry {}; this replica stops applying", index, e);
            return CompletableFuture.failedFuture(e);
        }
        if (decoded.batch() == null) {
            if (!applied.register(term, index)) {
                return CompletableFuture.failedFuture(outOfOrder(index));
            }
            complete(index);
            return CompletableFuture.completedFuture(message(decoded.refusal()));
        }
        Batch<C> batch = decoded.batch();
        if (batch.instance() != index) {
            IllegalStateException e = new IllegalStateException("codec made batch " + batch.instance()
                    + " of log entry " + index + "; the instance must be the log index");
            return CompletableFuture.failedFuture(e);
        }
        if (!applied.register(term, index)) {
            return CompletableFuture.failedFuture(outOfOrder(index));
        }
        Running<C, R> r = new Running<>(term, batch.size());
        running.put(index, r);
        try {
            scheduler.deliver(batch); // may complete r at once (a rejected batch)
        } catch (IllegalArgumentException e) {
            // Refused the same way on every replica (the batch depends only on the log): nothing ran.
            running.remove(index);
            complete(index);
            byte[] refusal;
            try {
                refusal = codec.refusal(batch, e.getMessage());
            } catch (RuntimeException codecError) {
                LOG.error("codec threw answering the refused log entry {}", index, codecError);
                refusal = null;
            }
            if (refusal != null) {
                r.reply.complete(message(refusal));
            } else {
                r.reply.completeExceptionally(e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.remove(index);
            r.reply.completeExceptionally(new InterruptedIOException("interrupted admitting log entry " + index));
        } catch (RuntimeException e) {
            running.remove(index);
            LOG.error("scheduler refused log entry {}; this replica stops applying", index, e);
            r.reply.completeExceptionally(e);
        }
        return r.reply;
    }

    /** Why entry {@code index} is not applied: Ratis gave it after a later one. Updater thread. */
    private IllegalStateException outOfOrder(long index) {
        return new IllegalStateException("log entry " + index + " arrived after entry " + applied.lastRegistered()
                + "; Ratis applies in log order");
    }

    /** Ratis' configuration and metadata entries: executed at once, behind the batches before them. */
    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        // An index already covered (by a loaded snapshot, say) needs nothing.
        if (applied.register(term, index)) {
            complete(index);
        }
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        // Nothing to do for determinism: every replica executes every entry, whoever leads.
        LOG.debug("{}: leader is now {}", groupMemberId, newLeaderId);
    }

    /** Marks {@code index} executed; the applied index tells Ratis of an advance, in increasing order. */
    private void complete(long index) {
        applied.complete(index);
    }

    /** The highest log index up to which every entry has executed; -1 before any. Any thread. */
    public long appliedIndex() {
        return applied.index();
    }

    /** The scheduler's counters, or null before Ratis initialised this state machine. Any thread. */
    public io.psmr.scheduler.SchedulerMetrics schedulerMetrics() {
        Scheduler<C, R> s = scheduler;
        return s == null ? null : s.metrics();
    }

    /** The scheduler's failure, if it fail-stopped. */
    public Optional<Throwable> failure() {
        Scheduler<C, R> s = scheduler;
        return s == null ? Optional.empty() : s.failure();
    }

    /** Answers the applied index, as 8 big-endian bytes, whatever the query: reads are commands. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(message(ByteBuffer.allocate(8).putLong(appliedIndex()).array()));
    }

    private static Message message(byte[] bytes) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(bytes));
    }

    /** Collects outcomes; on a batch's completion advances the applied index and builds the reply. Worker threads. */
    private final class Sink implements ResultSink<C, R> {

        @Override
        public void onResult(long instance, int index, C command, R result) {
            Running<C, R> r = running.get(instance);
            if (r != null) {
                r.outcomes[index] = new Outcome<>(result, null);
            }
        }

        @Override
        public void onError(long instance, int index, C command, CommandError error) {
            Running<C, R> r = running.get(instance);
            if (r != null) {
                r.outcomes[index] = new Outcome<>(null, error);
            }
        }

        @Override
        public void onBatchComplete(Batch<C> batch) {
            long instance = batch.instance();
            Running<C, R> r = running.remove(instance);
            if (r == null) {
                return;
            }
            complete(instance);
            CompletableFuture<byte[]> reply;
            try {
                reply = codec.reply(batch, Arrays.asList(r.outcomes));
            } catch (RuntimeException e) {
                LOG.error("codec threw building the reply of log entry {}", instance, e);
                r.reply.completeExceptionally(e);
                return;
            }
            reply.whenComplete((bytes, e) -> {
                if (e != null) {
                    r.reply.completeExceptionally(e);
                } else {
                    r.reply.complete(message(bytes));
                }
            });
        }
    }

    /**
     * Waits until every batch admitted so far has executed: for a {@link BatchCodec} whose decision
     * needs the state as sequential execution would leave it (a capacity check, say). Call it only from
     * {@link BatchCodec#decode}, on the updater thread, which admits, so nothing new arrives meanwhile.
     *
     * @throws IllegalStateException if the scheduler stopped
     */
    public void awaitExecuted() throws InterruptedException {
        Scheduler<C, R> s = scheduler;
        if (s == null) {
            throw new IllegalStateException("the state machine is not initialized");
        }
        while (!s.awaitIdle(1, TimeUnit.SECONDS)) {
            LOG.debug("waiting for {} log entries to execute", applied.inFlight());
        }
    }

    // ---------------------------------------------------------------- snapshots

    /**
     * Waits until every admitted batch has executed. Called on the updater thread, which admits,
     * so nothing new arrives meanwhile.
     */
    private void quiesce() throws IOException {
        try {
            while (!scheduler.awaitIdle(1, TimeUnit.SECONDS)) {
                LOG.debug("waiting for {} log entries to execute before a snapshot", applied.inFlight());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the scheduler to be idle");
        } catch (IllegalStateException e) {
            throw new IOException("the scheduler has stopped; no consistent snapshot can be taken", e);
        }
        if (applied.inFlight() != 0) {
            throw new IOException("scheduler idle but " + applied.inFlight() + " log entries not executed");
        }
    }

    @Override
    public long takeSnapshot() throws IOException {
        quiesce();
        long term = applied.term();
        long index = applied.index();
        if (index < 0) {
            return -1; // nothing applied yet
        }
        File file = storage.getSnapshotFile(term, index);
        Path tmp = file.toPath().resolveSibling(file.getName() + ".writing");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
            out.writeInt(SNAPSHOT_MAGIC);
            out.writeInt(SNAPSHOT_VERSION);
            out.writeLong(term);
            out.writeLong(index);
            snapshotter.save(out);
        }
        // Ratis finds snapshots by file name: only a complete file may carry it.
        Files.move(tmp, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), term, index));
        LOG.info("{}: snapshot at term {} index {} ({} bytes)", getId(), term, index, file.length());
        return index;
    }

    /** Replaces the state with {@code snapshot}'s, if there is one. Only while quiescent. */
    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path path = snapshot.getFile().getPath();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(path.toFile(), md5);
        }
        TermIndex named = snapshot.getTermIndex();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path)))) {
            int magic = in.readInt();
            int version = in.readInt();
            if (magic != SNAPSHOT_MAGIC || version != SNAPSHOT_VERSION) {
                throw new IOException(path + " is not a psmr snapshot of version " + SNAPSHOT_VERSION
                        + " (magic " + Integer.toHexString(magic) + ", version " + version + ")");
            }
            long term = in.readLong();
            long index = in.readLong();
            if (term != named.getTerm() || index != named.getIndex()) {
                throw new IOException(path + " holds term " + term + " index " + index + " but is named " + named);
            }
            snapshotter.restore(in);
        }
        applied.reset(named.getTerm(), named.getIndex());
        setLastAppliedTermIndex(named);
        LOG.info("{}: loaded snapshot at {}", getId(), named);
    }
}
