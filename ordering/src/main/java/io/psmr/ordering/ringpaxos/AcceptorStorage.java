package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An acceptor's durable state: its promise, its votes, the decisions it knows, and its trim point.
 * Everything else an acceptor holds is volatile and may be lost in a crash; this may not, because
 * Paxos's safety rests on an acceptor never forgetting a promise or a vote. The host must make it
 * durable before sending the messages of a {@link Ready} (the simulation keeps the object across a
 * restart, which models exactly that).
 *
 * <p>Bounded: it holds instances only in {@code (trimmedTo, trimmedTo + capacity]}.
 */
public final class AcceptorStorage {

    /** One instance's state. */
    private static final class Slot {
        Ballot votedBallot = Ballot.ZERO;
        Value value;
        boolean decided;
    }

    private final int capacity;
    private final TreeMap<Long, Slot> slots = new TreeMap<>();
    private Ballot promised = Ballot.ZERO;
    private long trimmedTo;
    private long highestDecided;

    /**
     * Creates empty storage.
     *
     * @param capacity most instances kept beyond the trim point
     */
    public AcceptorStorage(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        this.capacity = capacity;
    }

    /** The highest ballot promised (or voted in). */
    public Ballot promised() {
        return promised;
    }

    /** Every instance up to this one is decided, delivered by every learner, and forgotten here. */
    public long trimmedTo() {
        return trimmedTo;
    }

    /** The highest instance known decided here, or the trim point if higher. */
    public long highestDecided() {
        return Math.max(highestDecided, trimmedTo);
    }

    /** Whether {@code instance} fits in the bounded log: above the trim point and within capacity. */
    public boolean inRange(long instance) {
        return instance > trimmedTo && instance <= trimmedTo + capacity;
    }

    /** The most instances kept beyond the trim point. */
    public int capacity() {
        return capacity;
    }

    /** Raises the promise to {@code ballot} if it is higher. */
    void promise(Ballot ballot) {
        promised = Ballot.max(promised, ballot);
    }

    /**
     * Records a vote. The caller has checked that the ballot is not below the promise and that the
     * instance is {@linkplain #inRange in range}. A decided instance keeps its value: by Paxos any
     * later vote there is for that same value anyway.
     */
    void vote(long instance, Ballot ballot, Value value) {
        promise(ballot);
        Slot slot = slots.computeIfAbsent(instance, i -> new Slot());
        if (!slot.decided) {
            slot.value = value;
        }
        slot.votedBallot = Ballot.max(slot.votedBallot, ballot);
    }

    /** Records that {@code value} is decided at {@code instance} (ignored out of range). */
    void decide(long instance, Value value) {
        if (!inRange(instance)) {
            return;
        }
        Slot slot = slots.computeIfAbsent(instance, i -> new Slot());
        slot.value = value;
        slot.decided = true;
        highestDecided = Math.max(highestDecided, instance);
    }

    /** Whether {@code instance} is known decided (instances at or below the trim point are). */
    public boolean isDecided(long instance) {
        if (instance <= trimmedTo) {
            return true;
        }
        Slot slot = slots.get(instance);
        return slot != null && slot.decided;
    }

    /** The decided value at {@code instance}, or null if not known decided or already trimmed. */
    public Value decidedValue(long instance) {
        Slot slot = slots.get(instance);
        return slot != null && slot.decided ? slot.value : null;
    }

    /** The lowest instance above the trim point that is not known decided here. */
    public long firstUndecided() {
        long i = trimmedTo + 1;
        for (Map.Entry<Long, Slot> e : slots.tailMap(i, true).entrySet()) {
            if (e.getKey() != i || !e.getValue().decided) {
                return i;
            }
            i++;
        }
        return i;
    }

    /** The votes and decisions at {@code fromInstance} and above, for a Promise. At most {@link #capacity()}. */
    List<Vote> votesFrom(long fromInstance) {
        List<Vote> votes = new ArrayList<>();
        for (Map.Entry<Long, Slot> e : slots.tailMap(fromInstance, true).entrySet()) {
            Slot s = e.getValue();
            votes.add(new Vote(e.getKey(), s.votedBallot, s.value, s.decided));
        }
        return votes;
    }

    /**
     * Forgets every instance up to {@code instance}. Only ever called with an instance every learner
     * has delivered (directly reported by learners, or another acceptor's trim point, which was).
     */
    void trimTo(long instance) {
        if (instance <= trimmedTo) {
            return;
        }
        slots.headMap(instance, true).clear();
        trimmedTo = instance;
    }

    /** How many instances are held; never above {@link #capacity()}. */
    public int size() {
        return slots.size();
    }
}
