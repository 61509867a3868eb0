package io.psmr.kvstore;

import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.kvstore.checkpoint.SnapshottingStore;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.Subscription;
import io.psmr.scheduler.Scheduler;
import io.psmr.scheduler.SchedulerBuilder;
import io.psmr.scheduler.SchedulerMetrics;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A replica of the key-value store: atomic broadcast → admission → scheduler → {@link KvService}
 * → replies to the proposing proxy.
 *
 * <h2>Pipeline (in delivery order)</h2>
 * <ol>
 *   <li><b>Decode</b> the delivered value and verify its summary ({@link BatchAdmitter#decode}), on the
 *       broadcast's subscription thread, up to {@link ReplicaConfig#decodeAhead()} values ahead of
 *       admission ({@link DecodeStage}).</li>
 *   <li><b>Admit</b> it on the replica's delivery thread ({@link BatchAdmitter#admit(long, BatchAdmitter.Decoded)}):
 *       decide each command — over a limit, a session's duplicate or refusal, a new session, no
 *       room in the store (FULL), or execute. A value refused whole (malformed, or a summary that misses
 *       a key) is answered ({@link KvReply#WHOLE_BATCH}) at its turn to the proxy named in its header if
 *       that could be read.</li>
 *   <li><b>Schedule</b> the batch at its instance; the scheduler runs the commands to execute through
 *       the {@link KvService}, in parallel where batches do not conflict.</li>
 *   <li><b>Reply</b>: one {@link KvReply} per command ({@link BatchAdmitter#sink}), to the
 *       {@link ReplyRouter}, from the worker that ran the batch; a duplicate is answered when the
 *       original's result is known.</li>
 * </ol>
 * Every verdict and every result depends only on delivered data and the replicated configuration,
 * so all replicas send equal replies and reach equal {@link #digest() digests}. A failure that is
 * not decided by the log (the store throws) fail-stops the scheduler: {@link #failure()} reports it
 * and the replica delivers nothing more.
 *
 * <h2>Checkpoints</h2>
 * Started with {@link Checkpointing}, the replica takes a checkpoint at every instance that is a
 * multiple of its interval: it quiesces the scheduler there, writes the session table and the
 * ordering layer's resume state, and starts a copy-on-write snapshot of the store
 * ({@link SnapshottingStore}) that completes beside execution; the ordering layer hears when it is
 * durable. Started from an {@link InstalledCheckpoint}, it takes that checkpoint's store and sessions
 * and delivers from the instance after it. See {@code docs/recovery.md}.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li><b>The subscription's thread</b> (owned by the broadcast) decodes and verifies each value and
 *       queues it for the delivery thread; it blocks while {@link ReplicaConfig#decodeAhead()} values
 *       wait.</li>
 *   <li><b>The delivery thread</b> ({@code psmr-replica-<id>-delivery}, owned by the replica's
 *       {@link DecodeStage}) admits, schedules and checkpoints, one value at a time in delivery order;
 *       it is the only thread that touches the session table and the capacity guard.</li>
 *   <li><b>The scheduler's workers</b> (owned by the replica) execute and answer.</li>
 * </ul>
 * The public methods may be called from any thread. Back-pressure: when the scheduler has
 * {@code maxPending} batches, the delivery thread blocks, the decode stage fills, this learner falls
 * behind, and the broadcast holds proposers back. A failure of the delivery thread ends the
 * subscription ({@link #failure()}).
 */
public final class Replica implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Replica.class);

    /** How long {@link #close} lets the delivery thread admit the values already decoded before interrupting it. */
    private static final long CLOSE_TIMEOUT_SECONDS = 30;

    private final ReplicaConfig config;
    private final ReplyRouter router;
    private final KvStore store;
    private final BatchAdmitter admitter;
    private final KvService service;
    private final Scheduler<AdmittedCommand, KvResult> scheduler;
    private final Subscription subscription;
    private final DecodeStage<BatchAdmitter.Decoded> stage;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set by close once the delivery thread is done: a wait on the scheduler (quiesce, checkpoint) then gives up. */
    private volatile boolean stopWaiting;

    // Checkpoints: null when not taken.
    private final Checkpointing checkpointing;
    private final SnapshottingStore snapshots;
    private volatile long lastCheckpoint;
    private volatile boolean checkpointInFlight;
    private final Object checkpointDone = new Object(); // notified when a checkpoint's files are committed
    private volatile long lastCheckpointPauseNanos = -1;
    private volatile long maxCheckpointPauseNanos = -1;
    private final LongAdder checkpointsSkipped = new LongAdder();
    private final LongAdder checkpointsFailed = new LongAdder();

    private Replica(ReplicaConfig config, AtomicBroadcast broadcast, ReplyRouter router, Checkpointing checkpointing,
                    InstalledCheckpoint resume) {
        this.config = config;
        this.router = router;
        this.checkpointing = checkpointing;
        KvStore opened = resume != null ? resume.store() : config.store().open();
        long from = config.fromInstance();
        byte[] resumedCapacity = null;
        Scheduler<AdmittedCommand, KvResult> started = null;
        try {
            if (checkpointing != null) {
                // Snapshot files are Chronicle Maps sized like the replica's store (a heap store is sized by default).
                StoreConfig sizing = config.store().backend() == StoreConfig.Backend.CHRONICLE ? config.store()
                        : StoreConfig.defaults();
                opened = new SnapshottingStore(opened, sizing, checkpointing.maxRecordedBytes());
                this.snapshots = (SnapshottingStore) opened;
            } else {
                this.snapshots = null;
            }
            this.store = opened;
            KvService service = new KvService(store, config.limits());
            service.recount();
            this.service = service;
            this.admitter = new BatchAdmitter(config, service, this::quiesce, resume == null ? 0 : resume.instance());
            if (resume != null) {
                ReplicaCheckpointState state = ReplicaCheckpointState.fromBytes(resume.state());
                if (state.instance() != resume.instance()) {
                    throw new IllegalArgumentException("checkpoint " + resume.instance() + " holds the state of instance "
                            + state.instance());
                }
                admitter.sessions().readFrom(new DataInputStream(new ByteArrayInputStream(state.sessions())));
                resumedCapacity = state.capacity();
                from = resume.instance() + 1;
                lastCheckpoint = resume.instance();
            }
            SchedulerBuilder<AdmittedCommand, KvResult> b = Scheduler.<AdmittedCommand, KvResult>builder(admitter::execute)
                    .detection(config.detection())
                    .graph(config.graph())
                    .workers(config.workers())
                    .maxPending(config.maxPending())
                    .verifySummaries(false) // admission verifies first, so a refused batch leaves no trace
                    .resultSink(admitter.sink(router::route))
                    .threadNamePrefix("psmr-replica-" + config.replicaId() + "-worker-");
            if (config.sequential()) {
                b.sequential();
            }
            this.scheduler = started = b.start();
            if (resumedCapacity != null) {
                admitter.capacity().readFrom(new DataInputStream(new ByteArrayInputStream(resumedCapacity)));
            }
        } catch (IOException e) {
            if (started != null) {
                started.close();
            }
            opened.close();
            throw new IllegalArgumentException("checkpoint " + resume.instance() + " cannot be resumed from: "
                    + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            // The store may be off-heap or a file, the scheduler owns threads: leak neither when the replica cannot start.
            if (started != null) {
                started.close();
            }
            opened.close();
            throw e;
        }
        Delivery delivery = new Delivery();
        this.stage = new DecodeStage<>("psmr-replica-" + config.replicaId() + "-delivery", config.decodeAhead(), from - 1,
                (instance, value) -> BatchAdmitter.decode(value, config), delivery::deliver).start();
        Subscription s;
        try {
            s = broadcast.subscribe(from, stage);
        } catch (RuntimeException e) {
            stage.close(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            scheduler.close();
            store.close();
            throw e;
        }
        this.subscription = s;
    }

    /**
     * Opens the store, starts the scheduler and subscribes to {@code broadcast} from
     * {@link ReplicaConfig#fromInstance()}.
     *
     * @throws IllegalArgumentException as {@link AtomicBroadcast#subscribe} (for example an instance no
     *                                  longer retained)
     */
    public static Replica start(ReplicaConfig config, AtomicBroadcast broadcast, ReplyRouter router) {
        return new Replica(Objects.requireNonNull(config, "config"), Objects.requireNonNull(broadcast, "broadcast"),
                Objects.requireNonNull(router, "router"), null, null);
    }

    /**
     * As {@link #start(ReplicaConfig, AtomicBroadcast, ReplyRouter)}, taking checkpoints as
     * {@code checkpointing} says and, if {@code resume} is not null, starting from that installed
     * checkpoint: its store (which the replica now owns), its session table, and delivery from the
     * instance after it ({@link ReplicaConfig#fromInstance()} is then ignored). The broadcast must
     * deliver from there: for Ring Paxos, build it resuming from the checkpoint's ordering state.
     *
     * @param checkpointing how to take checkpoints, or null for none
     * @param resume        the checkpoint to start from, or null to start from the configured store
     * @throws IllegalArgumentException if the checkpoint's state cannot be read (naming why), or as
     *                                  {@link AtomicBroadcast#subscribe}
     */
    public static Replica start(ReplicaConfig config, AtomicBroadcast broadcast, ReplyRouter router,
                                Checkpointing checkpointing, InstalledCheckpoint resume) {
        return new Replica(Objects.requireNonNull(config, "config"), Objects.requireNonNull(broadcast, "broadcast"),
                Objects.requireNonNull(router, "router"), checkpointing, resume);
    }

    /** The replica's id, as in its replies. */
    public int id() {
        return config.replicaId();
    }

    /** The settings it runs with. */
    public ReplicaConfig config() {
        return config;
    }

    /**
     * The {@link StateDigest} of the store. Comparable across replicas only when both have applied
     * the same instances and nothing executes: call {@link #awaitApplied} first.
     */
    public long digest() {
        return store.digest();
    }

    /** The store, for reading after {@link #awaitApplied} (for example to check acknowledged writes); do not write. */
    public KvStore store() {
        return store;
    }

    /**
     * Waits until every instance up to {@code instance} has been delivered and every delivered batch
     * has executed and been answered.
     *
     * @return false on timeout, or if the subscription ended first (see {@link #failure()})
     */
    public boolean awaitApplied(long instance, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!subscription.awaitDelivered(instance, timeout, unit)) {
            return false;
        }
        if (!stage.awaitHandled(instance, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        return scheduler.awaitIdle(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Whether the replica still receives batches. */
    public boolean isServing() {
        return subscription.isActive() && !closed.get() && stage.failure().isEmpty();
    }

    /** What stopped delivery, if something did (a defect: refusals never stop a replica). */
    public Optional<Throwable> failure() {
        // A scheduler that fail-stopped is the root cause; delivery then ends on its refusal.
        return scheduler.failure().or(stage::failure).or(subscription::failure);
    }

    /** A snapshot of the replica's counters. */
    public ReplicaStats stats() {
        return admitter.stats();
    }

    /**
     * Checkpoint counters: the last durable checkpoint's instance (or the one resumed from; 0 if none),
     * the delivery pause of the last and the longest checkpoint (quiesce, session table, handoff to
     * the snapshot writer; -1 if none), and how many were skipped or failed.
     */
    public CheckpointStats checkpointStats() {
        return new CheckpointStats(lastCheckpoint, lastCheckpointPauseNanos, maxCheckpointPauseNanos,
                snapshots == null ? -1 : snapshots.lastPauseNanos(), checkpointsSkipped.sum(), checkpointsFailed.sum());
    }

    /**
     * Checkpoint counters of a replica.
     *
     * @param lastCheckpoint     the last durable checkpoint's instance, or the one the replica resumed from; 0 if none
     * @param lastPauseNanos     how long delivery stopped for the last checkpoint, or -1
     * @param maxPauseNanos      the longest such pause, or -1
     * @param lastHandoffNanos   the part of the last pause spent starting the copy-on-write snapshot, or -1
     * @param skipped            checkpoints skipped because the previous one was still being written
     * @param failed             checkpoints that failed (logged; the replica serves on)
     */
    public record CheckpointStats(long lastCheckpoint, long lastPauseNanos, long maxPauseNanos, long lastHandoffNanos,
                                  long skipped, long failed) {
    }

    /**
     * Key-plus-value bytes the store holds now, as {@link StoreCapacity} counts them (it moves while
     * batches execute). Any thread.
     */
    public long storedBytes() {
        return service.usedBytes();
    }

    /** The scheduler's counters. */
    public SchedulerMetrics schedulerMetrics() {
        return scheduler.metrics();
    }

    /**
     * Stops delivery, admits and schedules the values already decoded, lets the scheduler finish the
     * batches it holds (their replies are still sent), and closes the store. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stage.stopIntake(); // a subscription thread blocked on a full stage returns, so the subscription closes at once
        subscription.close();
        if (!stage.close(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            LOG.warn("replica {}: {} decoded values were not admitted at close{}", config.replicaId(), stage.queued(),
                    stage.failure().map(f -> " (" + f + ")").orElse(""));
        }
        stopWaiting = true;
        scheduler.close();
        store.close();
    }

    @Override
    public String toString() {
        return "Replica[" + config.replicaId() + ", last instance " + admitter.stats().lastInstance() + ", " + store + "]";
    }

    // ---------------------------------------------------------------- delivery

    /** The delivery thread's work: admit, schedule, checkpoint (the {@link DecodeStage}'s handler). */
    private final class Delivery {

        void deliver(long instance, BatchAdmitter.Decoded decoded) throws InterruptedException {
            BatchAdmitter.Verdict v = admitter.admit(instance, decoded);
            if (v instanceof BatchAdmitter.Refused r) {
                r.replies().forEach(router::route);
            } else {
                scheduler.deliver(((BatchAdmitter.Admitted) v).batch());
                admitter.handedOver(instance);
            }
            if (checkpointing != null && instance % checkpointing.interval() == 0) {
                checkpoint(instance);
            }
        }

        /**
         * Takes the checkpoint of {@code instance}: waits until every batch up to it has executed, writes
         * the session table and the ordering state, and starts the store's copy-on-write snapshot; the
         * snapshot completes on its own thread while delivery goes on. If the previous checkpoint is still
         * being written or committed, this one is skipped (checkpoints are local: the next one will do),
         * so before-images are never recorded while an earlier checkpoint's files are checked and synced.
         */
        private void checkpoint(long instance) throws InterruptedException {
            if (checkpointing.neverSkip()) {
                // Every replica must checkpoint this instance (an ordering certifies it): wait, never skip.
                synchronized (checkpointDone) {
                    while (checkpointInFlight || snapshots.snapshotRunning()) {
                        if (stopWaiting) {
                            throw new InterruptedException("replica " + config.replicaId()
                                    + " closed while waiting for its previous checkpoint");
                        }
                        checkpointDone.wait(10); // woken when the previous one commits; bounded to see a close
                    }
                }
            }
            if (checkpointInFlight || snapshots.snapshotRunning()) {
                checkpointsSkipped.increment();
                LOG.info("replica {}: checkpoint of instance {} skipped, the previous one is still being written",
                        config.replicaId(), instance);
                return;
            }
            long t0 = System.nanoTime();
            quiesce();
            byte[] state;
            try {
                ByteArrayOutputStream table = new ByteArrayOutputStream();
                admitter.sessions().writeTo(new DataOutputStream(table));
                ByteArrayOutputStream guard = new ByteArrayOutputStream();
                admitter.capacity().writeTo(new DataOutputStream(guard));
                state = new ReplicaCheckpointState(instance, table.toByteArray(), guard.toByteArray(),
                        checkpointing.hook().orderingState(instance)).toBytes();
                checkpointInFlight = true; // until its files are committed, not only its snapshot written
                checkpointing.store().take(instance, snapshots, state).whenComplete((cp, e) -> {
                    checkpointInFlight = false;
                    synchronized (checkpointDone) {
                        checkpointDone.notifyAll();
                    }
                    if (e != null) {
                        checkpointsFailed.increment();
                        LOG.warn("replica {}: checkpoint of instance {} failed: {}", config.replicaId(), instance,
                                e.getMessage());
                        return;
                    }
                    lastCheckpoint = instance;
                    checkpointing.hook().checkpointed(instance);
                });
            } catch (IOException | RuntimeException e) {
                // A checkpoint is local: without it the replica still serves, and a later one tries again.
                checkpointInFlight = false;
                checkpointsFailed.increment();
                LOG.warn("replica {}: checkpoint of instance {} could not start: {}", config.replicaId(), instance,
                        e.toString());
                return;
            }
            long pause = System.nanoTime() - t0;
            lastCheckpointPauseNanos = pause;
            maxCheckpointPauseNanos = Math.max(maxCheckpointPauseNanos, pause);
        }
    }

    /**
     * Waits until every batch handed to the scheduler has executed (delivery thread: nothing new
     * arrives meanwhile), in bounded waits so that a close or a fail-stop ends it.
     */
    private void quiesce() throws InterruptedException {
        while (!scheduler.awaitIdle(1, TimeUnit.SECONDS)) {
            if (stopWaiting) {
                throw new InterruptedException("replica " + config.replicaId() + " closed while waiting for its scheduler");
            }
        }
    }
}
