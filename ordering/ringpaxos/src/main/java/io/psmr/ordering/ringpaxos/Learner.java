package io.psmr.ordering.ringpaxos;

import io.psmr.ordering.protocol.Outbox;
import io.psmr.ordering.protocol.Ready;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A learner (a replica, for psmr): delivers decided values in instance order, without gaps, each
 * proposal once, and never a no-op.
 *
 * <p>It buffers decisions that arrive ahead of its next instance, at most
 * {@link RingPaxosConfig#learnerBuffer()} of them (later ones are dropped and fetched again). When
 * it knows of a later decided instance (from a decision or an acceptor's heartbeat) but lacks its
 * next one for {@link RingPaxosConfig#fetchTicks()}, it asks acceptors in turn for the missing
 * decisions. Every {@link RingPaxosConfig#reportTicks()} it reports its safe instance to every
 * acceptor, which lets them trim their logs; an unchanged one only every {@link RingPaxosConfig#quietTicks()}.
 *
 * <h2>Resuming and the safe instance</h2>
 * A learner may start from a {@link LearnerCheckpoint} taken from an earlier learner (the same replica before a
 * restart, or another replica whose state was transferred): it then delivers from the checkpoint's instance + 1 with
 * its duplicate filter, i.e. exactly what the original learner would have delivered next. What it reports as safe
 * depends on its {@link Reporting}: with {@link Reporting#DELIVERIES} (hosts that keep no checkpoints) everything it
 * delivered; with {@link Reporting#CHECKPOINTS} only the instance through which its host declared a checkpoint
 * durable ({@link #checkpointed(long)}), so acceptors never discard an instance a replica restarted from its last
 * checkpoint would need, and some live replica always has a checkpoint at or past every acceptor's trim point.
 *
 * <h2>Trimmed past</h2>
 * If an acceptor reports (in its heartbeat) a trim point at or above this learner's next instance, that instance is
 * gone for good: acceptors trim only what every live learner reported safe, and each acceptor copies the others'
 * trim points, so no acceptor will keep it. The learner then stops (no more fetches, reports or deliveries) and
 * says so once, with an {@link Output.TrimmedPast}; its host must install a newer checkpoint from another replica.
 * One acceptor is enough: waiting for more would only delay the host, and acting early is never unsafe (state
 * transfer yields a correct state in every case; at worst it was not needed).
 */
public final class Learner implements RingPaxosCore {

    /** What a learner reports to acceptors as its safe instance (the instance up to which they may trim). */
    public enum Reporting {
        /** Everything delivered: for hosts that keep no checkpoints and are never restarted. */
        DELIVERIES,
        /**
         * Only what the host declared durably checkpointed ({@link #checkpointed(long)}), at first the state the
         * learner started from: for hosts that checkpoint and restart from their checkpoints.
         */
        CHECKPOINTS
    }

    private final int id;
    private final RingPaxosConfig config;
    private final Outbox<Message, StorageChange, Output> outbox = new Outbox<>();
    private final TreeMap<Long, Value> buffer = new TreeMap<>();
    private final ProposalDeduplicator dedup;
    private final Reporting reporting;

    private long now;
    private long next;
    private long checkpointed;
    private long highestKnown;
    private long lastFetch = Long.MIN_VALUE / 2;
    private long lastReported = -1;
    private long lastReportAt = Long.MIN_VALUE / 2;
    private int fetchTarget;
    private boolean trimmedPast;

    /**
     * Creates a learner that delivers from instance 1 and reports what it delivered ({@link Reporting#DELIVERIES}).
     *
     * @param config the cluster
     * @param id     this learner's id, one of {@link RingPaxosConfig#learners()}
     */
    public Learner(RingPaxosConfig config, int id) {
        this(config, id, LearnerCheckpoint.INITIAL, Reporting.DELIVERIES);
    }

    /**
     * Creates a learner that resumes from {@code state}: it delivers from {@code state.deliveredThrough() + 1}, with
     * the duplicate filter of the state.
     *
     * @param config    the cluster
     * @param id        this learner's id, one of {@link RingPaxosConfig#learners()}
     * @param state     where to resume ({@link LearnerCheckpoint#INITIAL}: from instance 1)
     * @param reporting what to report as safe; with {@link Reporting#CHECKPOINTS} it first reports
     *                  {@code state.deliveredThrough()} (the host resumed from that checkpoint, so it is durable)
     */
    public Learner(RingPaxosConfig config, int id, LearnerCheckpoint state, Reporting reporting) {
        if (!config.isLearner(id)) {
            throw new IllegalArgumentException(id + " is not a learner");
        }
        this.id = id;
        this.config = config;
        this.reporting = Objects.requireNonNull(reporting, "reporting");
        this.dedup = new ProposalDeduplicator(config.proposerWindow(), state.proposers());
        this.next = state.nextInstance();
        this.checkpointed = state.deliveredThrough();
        this.highestKnown = state.deliveredThrough();
        this.fetchTarget = config.learners().indexOf(id) % config.acceptors().size();
    }

    @Override
    public int id() {
        return id;
    }

    /** The next instance to deliver: everything before it is delivered (or skipped as no-op or duplicate). */
    public long nextInstance() {
        return next;
    }

    /** How this learner reports its safe instance. */
    public Reporting reporting() {
        return reporting;
    }

    /** Whether an acceptor has trimmed past the next instance (the learner has then stopped for good). */
    public boolean isTrimmedPast() {
        return trimmedPast;
    }

    /**
     * The safe instance this learner reports: everything delivered ({@link Reporting#DELIVERIES}), or the highest
     * instance declared checkpointed ({@link Reporting#CHECKPOINTS}).
     */
    public long safeInstance() {
        return reporting == Reporting.DELIVERIES ? next - 1 : checkpointed;
    }

    /**
     * The state as of now, to resume from: delivered through {@code nextInstance() − 1}, with the duplicate filter.
     * (A host that needs the state as of an earlier delivery within one {@link Ready} uses a
     * {@link CheckpointTracker}.)
     */
    public LearnerCheckpoint checkpoint() {
        return new LearnerCheckpoint(next - 1, dedup.snapshot());
    }

    /**
     * The host made its checkpoint of the state through Paxos instance {@code paxosInstance} durable; from now on
     * the learner reports it as its safe instance (it never goes back to a lower one).
     *
     * @throws IllegalStateException    if this learner reports deliveries, not checkpoints
     * @throws IllegalArgumentException if {@code paxosInstance} was not delivered yet (it is not below
     *                                  {@link #nextInstance()})
     */
    public void checkpointed(long paxosInstance) {
        if (reporting != Reporting.CHECKPOINTS) {
            throw new IllegalStateException("learner " + id + " reports deliveries, not checkpoints");
        }
        if (paxosInstance >= next) {
            throw new IllegalArgumentException("learner " + id + " cannot have a checkpoint through instance "
                    + paxosInstance + ": it has delivered only through " + (next - 1));
        }
        checkpointed = Math.max(checkpointed, paxosInstance);
    }

    @Override
    public void step(Message message) {
        if (message.to() != id || !config.isAcceptor(message.from()) || trimmedPast) {
            return;
        }
        if (message instanceof Message.Decision d) {
            highestKnown = Math.max(highestKnown, d.instance());
            if (d.instance() >= next && d.instance() < next + config.learnerBuffer()) {
                buffer.putIfAbsent(d.instance(), d.value());
                deliverInOrder();
            }
        } else if (message instanceof Message.Heartbeat h) {
            highestKnown = Math.max(highestKnown, h.highestDecided());
            if (h.trimmedTo() >= next) {
                // Our next instance is discarded (see the class comment): no fetch can ever bring it.
                trimmedPast = true;
                buffer.clear();
                outbox.output(new Output.TrimmedPast(h.trimmedTo()));
            }
        }
    }

    @Override
    public void tick() {
        now++;
        if (trimmedPast) {
            return; // stopped: silent, so acceptors soon leave it out of their trim point
        }
        if (next <= highestKnown && !buffer.containsKey(next) && now - lastFetch >= config.fetchTicks()) {
            lastFetch = now;
            // Rotate: the acceptor asked last time may have crashed or may not know the decision.
            int acceptor = config.acceptors().get(fetchTarget);
            fetchTarget = (fetchTarget + 1) % config.acceptors().size();
            long last = Math.min(highestKnown, next + config.fetchBatch() - 1);
            outbox.send(new Message.Fetch(id, acceptor, next, last));
        }
        // An unchanged safe instance is reported at most quietTicks apart (the last report tick before they pass):
        // enough for acceptors to count this learner as alive, without waking them every few ticks when idle.
        long safe = safeInstance();
        boolean quietTooLong = now - lastReportAt + config.reportTicks() > config.quietTicks();
        if (now % config.reportTicks() == 0 && (safe != lastReported || quietTooLong)) {
            lastReported = safe;
            lastReportAt = now;
            for (int a : config.acceptors()) {
                outbox.send(new Message.Delivered(id, a, safe));
            }
        }
    }

    @Override
    public Ready<Message, StorageChange, Output> ready() {
        return outbox.drain();
    }

    @Override
    public void advance(Ready<Message, StorageChange, Output> ready) {
        outbox.advance(ready);
    }

    private void deliverInOrder() {
        Value v;
        while ((v = buffer.remove(next)) != null) {
            if (!v.isNoop() && dedup.firstDelivery(v.id())) {
                outbox.output(new Output.Delivery(next, v));
            }
            next++;
        }
    }
}
