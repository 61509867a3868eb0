package io.psmr.kvstore;

import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.Subscription;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.CommandError;
import io.psmr.scheduler.ResultSink;
import io.psmr.scheduler.Scheduler;
import io.psmr.scheduler.SchedulerBuilder;
import io.psmr.scheduler.SchedulerMetrics;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A replica of the key-value store: atomic broadcast → admission → scheduler → {@link KvService}
 * → replies to the proposing proxy.
 *
 * <h2>Pipeline (on the subscription's delivery thread, in delivery order)</h2>
 * <ol>
 *   <li><b>Admit</b> the delivered value ({@link CommandAdmission}): decode, verify the summary,
 *       and decide each command — over a limit, a session's duplicate or refusal, a new session, no
 *       room in the store (FULL), or execute. A value refused whole is answered
 *       ({@link KvReply#WHOLE_BATCH}) to the proxy named in its header if that could be read.</li>
 *   <li><b>Schedule</b> the batch at its instance; the scheduler runs the commands to execute through
 *       the {@link KvService}, in parallel where batches do not conflict.</li>
 *   <li><b>Reply</b>: one {@link KvReply} per command, to the {@link ReplyRouter}, from the worker
 *       that ran the batch; a duplicate is answered when the original's result is known.</li>
 * </ol>
 * Every verdict and every result depends only on delivered data and the replicated configuration,
 * so all replicas send equal replies and reach equal {@link #digest() digests}. A failure that is
 * not decided by the log (the store throws) fail-stops the scheduler: {@link #failure()} reports it
 * and the replica delivers nothing more.
 *
 * <h2>Threads</h2>
 * The replica owns its scheduler's workers; the broadcast owns the delivery thread. The public
 * methods may be called from any thread. Back-pressure: when the scheduler has {@code maxPending}
 * batches, delivery blocks, this learner falls behind, and the broadcast holds proposers back.
 */
public final class Replica implements AutoCloseable {

    private final ReplicaConfig config;
    private final ReplyRouter router;
    private final KvStore store;
    private final KvService service;
    private final SessionTable sessions;
    private final CapacityGuard capacity;
    private final CommandAdmission admission;
    private final Scheduler<AdmittedCommand, KvResult> scheduler;
    private final Subscription subscription;
    private final AtomicBoolean closed = new AtomicBoolean();

    private final LongAdder batchesDelivered = new LongAdder();
    private final LongAdder commandsExecuted = new LongAdder();
    private volatile long lastInstance;

    private Replica(ReplicaConfig config, AtomicBroadcast broadcast, ReplyRouter router) {
        this.config = config;
        this.router = router;
        this.store = config.store().open();
        try {
            this.service = new KvService(store, config.limits());
            service.recount();
            this.sessions = new SessionTable(config.replyCacheWindow(), config.maxSessions(),
                    config.sessionTimeoutInstances());
            SchedulerBuilder<AdmittedCommand, KvResult> b = Scheduler.<AdmittedCommand, KvResult>builder(this::execute)
                    .detection(config.detection())
                    .graph(config.graph())
                    .workers(config.workers())
                    .maxPending(config.maxPending())
                    .verifySummaries(false) // admission verifies first, so a refused batch leaves no trace
                    .resultSink(new Replies())
                    .threadNamePrefix("psmr-replica-" + config.replicaId() + "-worker-");
            if (config.sequential()) {
                b.sequential();
            }
            this.scheduler = b.start();
            this.capacity = new CapacityGuard(config.capacity(), new StoreUsage());
            this.admission = new CommandAdmission(config, sessions, capacity);
        } catch (RuntimeException | Error e) {
            // The store may be off-heap or a file: do not leak it when the replica cannot start.
            store.close();
            throw e;
        }
        Subscription s;
        try {
            s = broadcast.subscribe(config.fromInstance(), new Delivery());
        } catch (RuntimeException e) {
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
                Objects.requireNonNull(router, "router"));
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
        return scheduler.awaitIdle(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Whether the replica still receives batches. */
    public boolean isServing() {
        return subscription.isActive() && !closed.get();
    }

    /** What stopped delivery, if something did (a defect: refusals never stop a replica). */
    public Optional<Throwable> failure() {
        // A scheduler that fail-stopped is the root cause; delivery then ends on its refusal.
        return scheduler.failure().or(subscription::failure);
    }

    /** A snapshot of the replica's counters. */
    public ReplicaStats stats() {
        CommandAdmission a = admission;
        return new ReplicaStats(batchesDelivered.sum(), a.batchesRefused.sum(), a.refusalsUnaddressed.sum(),
                commandsExecuted.sum(), a.duplicates.sum(), a.staleRequests.sum(), a.commandsTooLarge.sum(),
                a.commandsFull.sum(), a.sessionsOpened.sum(), a.sessionRefusals.sum(), lastInstance);
    }

    /** The scheduler's counters. */
    public SchedulerMetrics schedulerMetrics() {
        return scheduler.metrics();
    }

    /**
     * Stops delivery, lets the scheduler finish the batches it holds (their replies are still sent),
     * and closes the store. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        subscription.close();
        scheduler.close();
        store.close();
    }

    @Override
    public String toString() {
        return "Replica[" + config.replicaId() + ", last instance " + lastInstance + ", " + store + "]";
    }

    // ---------------------------------------------------------------- execution

    private KvResult execute(AdmittedCommand c) {
        if (c.verdict != AdmittedCommand.Verdict.EXECUTE) {
            return c.preset; // null for a duplicate: answered from the cache by the sink
        }
        commandsExecuted.increment();
        return service.execute(c.command);
    }

    private void reply(AdmittedCommand.BatchOrigin origin, int index, long instance, KvResult result) {
        router.route(new KvReply(config.replicaId(), origin.proxyId(), origin.batchId(), index, instance, result));
    }

    /** Turns scheduler outcomes into replies and cache entries. Worker threads. */
    private final class Replies implements ResultSink<AdmittedCommand, KvResult> {

        @Override
        public void onResult(long instance, int index, AdmittedCommand c, KvResult result) {
            switch (c.verdict) {
                case EXECUTE -> {
                    c.entry.complete(result);
                    reply(c.origin, index, instance, result);
                }
                case ANSWERED -> reply(c.origin, index, instance, result);
                case DUPLICATE -> c.entry.whenComplete(r -> reply(c.origin, index, instance, r));
            }
        }

        @Override
        public void onError(long instance, int index, AdmittedCommand c, CommandError error) {
            KvStatus status = error.kind() == CommandError.Kind.REJECTED ? KvStatus.REJECTED : KvStatus.FAILED;
            KvResult r = KvResult.of(status, error.message());
            if (c.verdict == AdmittedCommand.Verdict.EXECUTE) {
                c.entry.complete(r);
            }
            reply(c.origin, index, instance, r);
        }
    }

    // ---------------------------------------------------------------- delivery

    /** The delivery thread's work: admit, schedule. */
    private final class Delivery implements DeliveryListener {

        @Override
        public void deliver(long instance, byte[] value) throws InterruptedException {
            batchesDelivered.increment();
            CommandAdmission.Verdict v = admission.admit(instance, value);
            if (v instanceof CommandAdmission.Refused r) {
                lastInstance = instance;
                if (r.addressed()) {
                    router.route(new KvReply(config.replicaId(), r.proxyId(), r.batchId(), KvReply.WHOLE_BATCH, instance,
                            KvResult.of(r.status(), r.detail(instance))));
                }
                return;
            }
            CommandAdmission.Admitted a = (CommandAdmission.Admitted) v;
            scheduler.deliver(new Batch<>(instance, a.commands(), a.batch().summary()));
            lastInstance = instance;
        }
    }

    /** What the capacity guard reads: exact only once the scheduler has run everything delivered. */
    private final class StoreUsage implements CapacityGuard.Usage {

        @Override
        public void quiesce() throws InterruptedException {
            while (!scheduler.awaitIdle(1, TimeUnit.SECONDS)) {
                // Bounded waits, so a close() or a fail-stop (awaitIdle throws) ends the loop.
                if (closed.get()) {
                    throw new InterruptedException("replica " + config.replicaId() + " closed while waiting to count its store");
                }
            }
        }

        @Override
        public long entries() {
            return store.size();
        }

        @Override
        public long bytes() {
            return service.usedBytes();
        }
    }
}
