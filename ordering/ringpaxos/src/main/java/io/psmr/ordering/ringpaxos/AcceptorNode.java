package io.psmr.ordering.ringpaxos;

import io.psmr.ordering.protocol.Outbox;
import io.psmr.ordering.protocol.Ready;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An acceptor, and the coordinator when it is the lowest acceptor it believes alive.
 *
 * <p>As acceptor it keeps the Paxos rules on its {@link AcceptorStorage}: it promises a ballot only
 * if no higher one was promised, and votes in a ballot only if no higher one was promised. As ring
 * member it forwards each Accept it votes for to the next member; as last member it decides and
 * tells every acceptor, every learner and the proposer. It also answers learners' fetches, trims
 * its log to what every live learner reported safe, and sends heartbeats.
 *
 * <h2>Trimming to the live learners</h2>
 * Learners report their safe instance (see {@link Learner.Reporting}) every few ticks. The acceptor trims its log to
 * the minimum report over the learners it counts:
 * <ul>
 *   <li>a learner not heard from for more than {@link RingPaxosConfig#learnerSilenceTicks()} is presumed dead and not
 *       counted (a learner never heard from counts as heard, with report 0, when the acceptor started, so a
 *       restarted acceptor waits for every learner's report before trimming, as long as that learner is alive);</li>
 *   <li>while the log is full (no room for another window of instances), a learner whose report has not advanced
 *       for more than {@code learnerSilenceTicks} although another counted learner reported further is presumed
 *       stuck and not counted: a live but stalled replica would otherwise stall the whole cluster;</li>
 *   <li>a learner that reports again (or advances again) is counted again at once;</li>
 *   <li>if no learner is counted, nothing is trimmed: nobody vouches that anything was delivered.</li>
 * </ul>
 * A learner left out may find its next instance trimmed; it learns so from the heartbeats' trim point and its host
 * must install a checkpoint from another replica ({@link Output.TrimmedPast}). Trimming stays safe for Paxos: an
 * instance is trimmed only once some learner reported it safe, so it is decided, and its value is in that learner's
 * host's state (or checkpoint). {@link #trimBlocker()} tells a host which learner holds the trim point.
 *
 * <p>Crash and restart: build a new {@code AcceptorNode} on the same storage, or on storage restored
 * from the {@link StorageChange}s its Readys carried (see {@link AcceptorStorage#restore}). The coordinator role,
 * the failure detector and the learners' reports are volatile and are rebuilt from messages: a restarted acceptor votes only at or
 * above its restored promise, and coordinates only after a fresh Phase 1 under a ballot above every
 * round it has promised.
 */
public final class AcceptorNode implements RingPaxosCore {

    private final int id;
    private final RingPaxosConfig config;
    private final AcceptorStorage storage;
    private final FailureDetector detector;
    private final Outbox<Message, StorageChange, Output> outbox = new Outbox<>();
    // Messages to itself (the coordinator preparing and voting locally) skip the network.
    private final ArrayDeque<Message> local = new ArrayDeque<>();
    // Every configured learner's latest report; volatile, rebuilt from reports after a restart.
    private final Map<Integer, LearnerReport> learnerReports = new TreeMap<>();

    /** One learner's latest report as this acceptor knows it. */
    private static final class LearnerReport {
        long upTo;
        long heardAt;
        long advancedAt;
    }

    /**
     * Why an acceptor keeps instances that are decided: the learner that holds its trim point back.
     *
     * @param learner          the counted learner with the lowest report (the lowest id among equals), or -1 when
     *                         no learner is counted (none heard from recently), so nothing can be trimmed
     * @param reported         that learner's report (its safe instance), or the trim point when {@code learner} is -1
     * @param ticksSinceReport ticks since that learner was last heard from (0 when {@code learner} is -1)
     * @param trimmedTo        this acceptor's trim point
     * @param highestDecided   the highest instance this acceptor knows decided
     * @param logFull          whether the log has no room for another window, so the coordinator waits for trimming
     */
    public record TrimBlocker(int learner, long reported, long ticksSinceReport, long trimmedTo, long highestDecided,
                              boolean logFull) {
    }

    /** What this acceptor's last heartbeat to one learner said, and when it was sent. */
    private static final class LearnerTold {
        long highestDecided = -1;
        long trimmedTo = -1;
        long at = Long.MIN_VALUE / 2;
    }

    // Learners need a heartbeat only for news (a higher decided instance, a new trim point); an idle cluster sends
    // them one every quietTicks, so that a message lost while a link was down is repaired.
    private final Map<Integer, LearnerTold> learnersTold = new TreeMap<>();

    private long now;
    private long maxRoundSeen;
    private Coordinator coordinator;

    /**
     * Creates an acceptor.
     *
     * @param config  the cluster
     * @param id      this acceptor's id, one of {@link RingPaxosConfig#acceptors()}
     * @param storage its durable state: fresh, or what it had before a crash
     */
    public AcceptorNode(RingPaxosConfig config, int id, AcceptorStorage storage) {
        if (!config.isAcceptor(id)) {
            throw new IllegalArgumentException(id + " is not an acceptor");
        }
        this.id = id;
        this.config = config;
        this.storage = storage;
        this.detector = new FailureDetector(id, config.acceptors(), config.suspectTicks());
        this.maxRoundSeen = storage.promised().round();
        for (int l : config.learners()) {
            learnerReports.put(l, new LearnerReport()); // report 0, heard at tick 0: see the class comment
            learnersTold.put(l, new LearnerTold());
        }
    }

    @Override
    public int id() {
        return id;
    }

    /** The durable state. */
    public AcceptorStorage storage() {
        return storage;
    }

    /** Whether this acceptor is coordinating with a completed Phase 1. */
    public boolean isCoordinator() {
        return coordinator != null && coordinator.isActive();
    }

    @Override
    public void step(Message message) {
        if (message.to() != id) {
            return;
        }
        handle(message);
        drainLocal();
    }

    @Override
    public void tick() {
        now++;
        if (now % config.heartbeatTicks() == 0) {
            for (int other : config.acceptors()) {
                if (other != id) {
                    send(new Message.Heartbeat(id, other, storage.promised(), storage.highestDecided(), storage.trimmedTo()));
                }
            }
            for (Map.Entry<Integer, LearnerTold> e : learnersTold.entrySet()) {
                heartbeatLearner(e.getKey(), e.getValue());
            }
        }
        // Learners fall silent without any message arriving: re-evaluate the trim point as time passes.
        if (now % config.reportTicks() == 0) {
            trimToCountedLearners();
        }
        boolean leader = detector.lowestLive(now) == id;
        if (leader && coordinator == null) {
            becomeCoordinator();
        } else if (!leader && coordinator != null) {
            coordinator = null;
        } else if (coordinator != null) {
            coordinator.tick(now);
        }
        drainLocal();
    }

    @Override
    public Ready<Message, StorageChange, Output> ready() {
        for (StorageChange c : storage.takeChanges()) {
            outbox.persist(c); // durable before this Ready's messages leave: they may carry the promise or the vote
        }
        return outbox.drain();
    }

    @Override
    public void advance(Ready<Message, StorageChange, Output> ready) {
        outbox.advance(ready);
    }

    private void becomeCoordinator() {
        long round = Math.max(maxRoundSeen, storage.promised().round()) + 1;
        maxRoundSeen = round;
        coordinator = new Coordinator(id, config, storage, detector, this::send, new Ballot(round, id));
        coordinator.start(now);
    }

    private void send(Message m) {
        if (m.to() == id) {
            local.add(m);
        } else {
            outbox.send(m);
        }
    }

    private void drainLocal() {
        Message m;
        while ((m = local.poll()) != null) {
            handle(m);
        }
    }

    private void handle(Message message) {
        if (config.isAcceptor(message.from())) {
            detector.heard(message.from(), now);
        }
        // Java 17 has no pattern switch outside preview; the chain is exhaustive over the sealed type.
        if (message instanceof Message.Propose p) {
            onPropose(p);
        } else if (message instanceof Message.Prepare p) {
            onPrepare(p);
        } else if (message instanceof Message.Promise p) {
            if (coordinator != null) {
                coordinator.onPromise(p, now);
            }
        } else if (message instanceof Message.Accept a) {
            onAccept(a);
        } else if (message instanceof Message.Reject r) {
            onReject(r);
        } else if (message instanceof Message.Decision d) {
            onDecision(d);
        } else if (message instanceof Message.Heartbeat h) {
            onHeartbeat(h);
        } else if (message instanceof Message.Fetch f) {
            onFetch(f);
        } else if (message instanceof Message.Delivered d) {
            onDelivered(d);
        }
    }

    private void onPropose(Message.Propose p) {
        if (coordinator != null) {
            coordinator.enqueue(p.value(), now);
        } else if (!p.forwarded()) {
            int leader = detector.lowestLive(now);
            if (leader != id) {
                send(new Message.Propose(id, leader, p.value(), true));
            }
        }
    }

    private void onPrepare(Message.Prepare p) {
        if (!config.isAcceptor(p.from()) || p.ballot().coordinator() != p.from()) {
            return;
        }
        seeRound(p.ballot());
        if (p.ballot().isBelow(storage.promised())) {
            send(new Message.Reject(id, p.from(), storage.promised()));
            return;
        }
        storage.promise(p.ballot());
        send(new Message.Promise(id, p.from(), p.ballot(), storage.trimmedTo(),
                storage.votesFrom(Math.max(p.fromInstance(), storage.trimmedTo() + 1))));
    }

    private void onAccept(Message.Accept a) {
        List<Integer> ring = a.ring();
        if (a.position() < 0 || a.position() >= ring.size() || ring.get(a.position()) != id
                || ring.get(0) != a.ballot().coordinator() || ring.size() != config.quorum()
                || ring.stream().distinct().count() != ring.size()
                || !ring.stream().allMatch(config::isAcceptor)) {
            return; // malformed: refuse, never obey
        }
        seeRound(a.ballot());
        if (a.ballot().isBelow(storage.promised())) {
            send(new Message.Reject(id, a.ballot().coordinator(), storage.promised()));
            return;
        }
        if (!storage.inRange(a.instance())) {
            return; // trimmed (so decided) or beyond the bounded log: the coordinator retries later
        }
        storage.vote(a.instance(), a.ballot(), a.value());
        if (a.position() < ring.size() - 1) {
            send(new Message.Accept(id, ring.get(a.position() + 1), a.ballot(), a.instance(), a.value(), ring,
                    a.position() + 1));
            return;
        }
        // Last ring member: all f+1 members voted for this value in this ballot, a quorum. Decided.
        storage.decide(a.instance(), a.value());
        for (int other : config.acceptors()) {
            send(new Message.Decision(id, other, a.instance(), a.value(), a.ballot()));
        }
        for (int learner : config.learners()) {
            send(new Message.Decision(id, learner, a.instance(), a.value(), a.ballot()));
        }
        if (!a.value().isNoop()) {
            send(new Message.Decision(id, a.value().id().proposer(), a.instance(), a.value(), a.ballot()));
        }
    }

    private void onReject(Message.Reject r) {
        seeRound(r.promised());
        if (coordinator != null && r.promised().isAbove(coordinator.ballot())) {
            // Someone prepared a higher ballot. If we still believe we should coordinate, outbid it;
            // the failure detectors converge, so this duel ends once the network is stable.
            coordinator = null;
            if (detector.lowestLive(now) == id) {
                becomeCoordinator();
            }
        }
    }

    private void onDecision(Message.Decision d) {
        if (!config.isAcceptor(d.from())) {
            return;
        }
        storage.decide(d.instance(), d.value());
        if (coordinator != null) {
            coordinator.onDecided(d.instance(), now);
        }
    }

    /** Sends {@code learner} a heartbeat if it has news for it, or if it told it nothing for quietTicks. */
    private void heartbeatLearner(int learner, LearnerTold told) {
        long decided = storage.highestDecided();
        long trimmed = storage.trimmedTo();
        if (decided == told.highestDecided && trimmed == told.trimmedTo && now - told.at < config.quietTicks()) {
            return;
        }
        told.highestDecided = decided;
        told.trimmedTo = trimmed;
        told.at = now;
        send(new Message.Heartbeat(id, learner, storage.promised(), decided, trimmed));
    }

    private void onHeartbeat(Message.Heartbeat h) {
        if (!config.isAcceptor(h.from())) {
            return;
        }
        seeRound(h.promised());
        // Another acceptor's trim point was reported safe by every learner it counted: it is decided, and those
        // learners will not need it; a learner it left out learns from our heartbeats that it was trimmed past.
        storage.trimTo(h.trimmedTo());
    }

    private void onFetch(Message.Fetch f) {
        if (!config.isLearner(f.from())) {
            return;
        }
        long last = Math.min(f.toInstance(), f.fromInstance() + config.fetchBatch() - 1);
        for (long i = Math.max(f.fromInstance(), storage.trimmedTo() + 1); i <= last; i++) {
            Value v = storage.decidedValue(i);
            if (v != null) {
                send(new Message.Decision(id, f.from(), i, v, storage.promised()));
            }
        }
    }

    private void onDelivered(Message.Delivered d) {
        if (!config.isLearner(d.from())) {
            return;
        }
        LearnerReport r = learnerReports.get(d.from());
        r.heardAt = now;
        if (d.upTo() > r.upTo) {
            r.upTo = d.upTo();
            r.advancedAt = now;
        }
        trimToCountedLearners();
    }

    /** Trims to the lowest report of the learners counted now (see the class comment). */
    private void trimToCountedLearners() {
        int holder = countedMinimum();
        if (holder >= 0) {
            // Every live learner has this instance safe (delivered, or in a durable checkpoint): it is decided,
            // and no live learner will need it from us again.
            storage.trimTo(learnerReports.get(holder).upTo);
        }
    }

    /** Whether the log has no room for another window of instances, so the coordinator waits for trimming. */
    private boolean logFull() {
        return storage.highestDecided() - storage.trimmedTo() > (long) storage.capacity() - config.window();
    }

    /** The counted learner with the lowest report (lowest id among equals), or -1 if none is counted. */
    private int countedMinimum() {
        long silence = config.learnerSilenceTicks();
        long highest = Long.MIN_VALUE;
        for (LearnerReport r : learnerReports.values()) {
            if (now - r.heardAt <= silence) {
                highest = Math.max(highest, r.upTo);
            }
        }
        if (highest == Long.MIN_VALUE) {
            return -1;
        }
        boolean full = logFull();
        int holder = -1;
        long min = Long.MAX_VALUE;
        for (Map.Entry<Integer, LearnerReport> e : learnerReports.entrySet()) {
            LearnerReport r = e.getValue();
            if (now - r.heardAt > silence) {
                continue; // presumed dead
            }
            if (full && r.upTo < highest && now - r.advancedAt > silence) {
                continue; // presumed stuck while others go on
            }
            if (r.upTo < min) {
                min = r.upTo;
                holder = e.getKey();
            }
        }
        return holder;
    }

    /**
     * Why this acceptor holds decided instances it has not trimmed: empty when everything it knows decided is
     * trimmed; otherwise the learner holding the trim point (or -1 if none is counted) and whether the log is full,
     * i.e. whether the coordinator waits. For the host to log; the acceptor's thread only.
     */
    public Optional<TrimBlocker> trimBlocker() {
        if (storage.highestDecided() <= storage.trimmedTo()) {
            return Optional.empty();
        }
        int holder = countedMinimum();
        boolean full = logFull();
        if (holder < 0) {
            return Optional.of(new TrimBlocker(-1, storage.trimmedTo(), 0, storage.trimmedTo(), storage.highestDecided(),
                    full));
        }
        LearnerReport r = learnerReports.get(holder);
        return Optional.of(new TrimBlocker(holder, r.upTo, now - r.heardAt, storage.trimmedTo(),
                storage.highestDecided(), full));
    }

    private void seeRound(Ballot b) {
        maxRoundSeen = Math.max(maxRoundSeen, b.round());
    }
}
