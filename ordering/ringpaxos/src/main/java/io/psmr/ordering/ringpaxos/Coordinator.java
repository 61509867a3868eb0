package io.psmr.ordering.ringpaxos;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The coordinator role of one acceptor under one ballot: volatile, rebuilt from scratch (with a
 * higher ballot) whenever the acceptor becomes coordinator again. It runs Phase 1 once for all
 * instances from the first one it does not know decided, then gives instances to proposals and
 * sends each along the ring.
 *
 * <p>Its own acceptor is an ordinary ring member: the coordinator sends Prepares and Accepts to
 * itself through {@code send}, and its acceptor answers like any other.
 */
final class Coordinator {

    private enum Phase { PREPARING, ACTIVE }

    /** An instance this coordinator started and has not seen decided yet. */
    private static final class InFlight {
        final Value value;
        long sentAt;

        InFlight(Value value, long sentAt) {
            this.value = value;
            this.sentAt = sentAt;
        }
    }

    private final int self;
    private final RingPaxosConfig config;
    private final AcceptorStorage storage;
    private final FailureDetector detector;
    private final Consumer<Message> send;
    private final Ballot ballot;

    private Phase phase = Phase.PREPARING;
    private long prepareFrom;
    private long preparedAt;
    private final Map<Integer, Message.Promise> promises = new HashMap<>();

    private long nextInstance;
    private final TreeMap<Long, InFlight> inFlight = new TreeMap<>();
    private final Set<ProposalId> assigned = new HashSet<>();
    private final ArrayDeque<Value> queue = new ArrayDeque<>();
    private final Set<ProposalId> queued = new HashSet<>();

    Coordinator(int self, RingPaxosConfig config, AcceptorStorage storage, FailureDetector detector,
                Consumer<Message> send, Ballot ballot) {
        this.self = self;
        this.config = config;
        this.storage = storage;
        this.detector = detector;
        this.send = send;
        this.ballot = ballot;
    }

    Ballot ballot() {
        return ballot;
    }

    boolean isActive() {
        return phase == Phase.ACTIVE;
    }

    /** Phase 1a: prepare every instance from the first one this acceptor does not know decided. */
    void start(long now) {
        prepareFrom = storage.firstUndecided();
        preparedAt = now;
        for (int a : config.acceptors()) {
            send.accept(new Message.Prepare(self, a, ballot, prepareFrom));
        }
    }

    /** Queues a proposal; drops it when the queue is full or it is already queued or in flight. */
    void enqueue(Value value, long now) {
        if (value.isNoop() || assigned.contains(value.id()) || queued.contains(value.id())
                || queue.size() >= config.coordinatorQueue()) {
            return;
        }
        queue.add(value);
        queued.add(value.id());
        assignQueued(now);
    }

    /** Phase 1b: counts promises; with a quorum, recovers every undecided instance and goes active. */
    void onPromise(Message.Promise promise, long now) {
        if (phase != Phase.PREPARING || !promise.ballot().equals(ballot) || !config.isAcceptor(promise.from())) {
            return;
        }
        promises.putIfAbsent(promise.from(), promise);
        if (promises.size() < config.quorum()) {
            return;
        }
        // Instances at or below any responder's trim point were delivered by every learner: skip them.
        long trimmed = storage.trimmedTo();
        for (Message.Promise p : promises.values()) {
            trimmed = Math.max(trimmed, p.trimmedTo());
        }
        storage.trimTo(trimmed);
        long start = Math.max(prepareFrom, trimmed + 1);
        // The Paxos rule: per instance, a known decision, else the vote of the highest ballot.
        TreeMap<Long, Vote> chosen = new TreeMap<>();
        for (Message.Promise p : promises.values()) {
            for (Vote v : p.votes()) {
                if (v.instance() < start) {
                    continue;
                }
                Vote best = chosen.get(v.instance());
                if (best == null || (!best.decided() && (v.decided() || v.ballot().isAbove(best.ballot())))) {
                    chosen.put(v.instance(), v);
                }
            }
        }
        long last = chosen.isEmpty() ? start - 1 : chosen.lastKey();
        phase = Phase.ACTIVE;
        // Holes below the highest vote get no-ops: nothing can have been decided there, or a quorum
        // member would have reported a vote.
        for (long i = start; i <= last; i++) {
            Vote v = chosen.get(i);
            launch(i, v == null ? Value.NOOP : v.value(), now);
        }
        nextInstance = last + 1;
        assignQueued(now);
    }

    /** An instance is decided: it leaves the window. */
    void onDecided(long instance, long now) {
        InFlight done = inFlight.remove(instance);
        if (done != null) {
            assigned.remove(done.value.id());
        }
        assignQueued(now);
    }

    /** Retries what went unanswered and drops what was trimmed meanwhile. */
    void tick(long now) {
        if (phase == Phase.PREPARING) {
            if (now - preparedAt >= config.retryTicks()) {
                preparedAt = now;
                for (int a : config.acceptors()) {
                    if (!promises.containsKey(a)) {
                        send.accept(new Message.Prepare(self, a, ballot, prepareFrom));
                    }
                }
            }
            return;
        }
        while (!inFlight.isEmpty() && inFlight.firstKey() <= storage.trimmedTo()) {
            assigned.remove(inFlight.pollFirstEntry().getValue().value.id());
        }
        List<Integer> ring = null;
        for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
            InFlight f = e.getValue();
            if (now - f.sentAt >= config.retryTicks()) {
                if (ring == null) {
                    ring = detector.ring(config.quorum(), now);
                }
                f.sentAt = now;
                sendAccept(e.getKey(), f.value, ring);
            }
        }
        assignQueued(now);
    }

    /** Gives instances to queued proposals while the window and the log have room. */
    private void assignQueued(long now) {
        if (phase != Phase.ACTIVE) {
            return;
        }
        nextInstance = Math.max(nextInstance, storage.trimmedTo() + 1);
        while (!queue.isEmpty()
                && nextInstance < storage.firstUndecided() + config.window()
                && storage.inRange(nextInstance)) {
            Value v = queue.poll();
            queued.remove(v.id());
            launch(nextInstance++, v, now);
        }
    }

    private void launch(long instance, Value value, long now) {
        inFlight.put(instance, new InFlight(value, now));
        if (!value.isNoop()) {
            assigned.add(value.id());
        }
        sendAccept(instance, value, detector.ring(config.quorum(), now));
    }

    private void sendAccept(long instance, Value value, List<Integer> ring) {
        send.accept(new Message.Accept(self, ring.get(0), ballot, instance, value, ring, 0));
    }
}
