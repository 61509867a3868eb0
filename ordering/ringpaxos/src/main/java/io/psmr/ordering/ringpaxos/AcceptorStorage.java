package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An acceptor's durable state: its promise, its votes, the decisions it knows, and its trim point.
 * Everything else an acceptor holds is volatile and may be lost in a crash; this may not, because
 * Paxos's safety rests on an acceptor never forgetting a promise or a vote.
 *
 * <p><b>Durability.</b> The storage itself does no I/O. It records every change as a {@link StorageChange}, and
 * its {@link AcceptorNode} hands them to the host in the {@link io.psmr.ordering.protocol.Ready#writes() writes}
 * of its next Ready, which the host makes durable (for example in
 * {@code io.psmr.ordering.ringpaxos.storage.FileAcceptorLog}) before it sends that Ready's messages. After a
 * restart the host replays them through {@link #restore}. {@link #asChanges()} gives the current state as
 * changes, for compacting a log. (The simulation keeps the object across a restart, which models a host that
 * persisted every change.)
 *
 * <p>Bounded: it holds instances only in {@code (trimmedTo, trimmedTo + capacity]}.
 *
 * <p>Not thread-safe: the node's thread only.
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
    // Every instance above the trim point and below this is decided: a slot, once decided, stays so until trimmed,
    // so firstUndecided() resumes here instead of walking the log's decided prefix on every call.
    private long decidedBelow = 1;
    // Changes not yet taken by the node for a Ready (see takeChanges).
    private final List<StorageChange> changes = new ArrayList<>();

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

    /**
     * Applies one change as the protocol made it, without recording it: how a host restores storage from its
     * durable record after a restart, before any node is built on it.
     *
     * @throws IllegalArgumentException for a vote outside the bounded log (the record was written with a larger
     *                                  capacity, or is corrupt)
     */
    public void restore(StorageChange change) {
        if (change instanceof StorageChange.Voted v && !inRange(v.instance())) {
            throw new IllegalArgumentException("vote at instance " + v.instance() + " outside the log ("
                    + trimmedTo + ", " + (trimmedTo + capacity) + "]: written with a larger capacity?");
        }
        int recorded = changes.size();
        if (change instanceof StorageChange.Promised p) {
            promise(p.ballot());
        } else if (change instanceof StorageChange.Voted v) {
            vote(v.instance(), v.ballot(), v.value());
        } else if (change instanceof StorageChange.Decided d) {
            decide(d.instance(), d.value());
        } else if (change instanceof StorageChange.Trimmed t) {
            trimTo(t.upTo());
        }
        changes.subList(recorded, changes.size()).clear(); // already durable: nothing to persist again
    }

    /**
     * The current state as changes which, replayed onto empty storage of the same capacity, rebuild it: the trim
     * point, the promise, then each held instance's vote and decision in instance order. At most
     * {@code 2 + 2 × capacity} changes.
     */
    public List<StorageChange> asChanges() {
        List<StorageChange> out = new ArrayList<>();
        if (trimmedTo > 0) {
            out.add(new StorageChange.Trimmed(trimmedTo));
        }
        if (!promised.equals(Ballot.ZERO)) {
            out.add(new StorageChange.Promised(promised));
        }
        for (Map.Entry<Long, Slot> e : slots.entrySet()) {
            Slot s = e.getValue();
            if (!s.votedBallot.equals(Ballot.ZERO)) {
                out.add(new StorageChange.Voted(e.getKey(), s.votedBallot, s.value));
            }
            if (s.decided) {
                out.add(new StorageChange.Decided(e.getKey(), s.value));
            }
        }
        return out;
    }

    /**
     * Returns and forgets the changes made since the last call, in the order they happened: the node's
     * {@code ready()} puts them in its Ready's writes. Only changes that alter the state are recorded: a promise
     * that raises the promised ballot, a vote, a decision not already known with that value, a trim that moves
     * the trim point.
     */
    List<StorageChange> takeChanges() {
        if (changes.isEmpty()) {
            return List.of();
        }
        List<StorageChange> taken = List.copyOf(changes);
        changes.clear();
        return taken;
    }

    /** Raises the promise to {@code ballot} if it is higher. */
    void promise(Ballot ballot) {
        if (ballot.isAbove(promised)) {
            promised = ballot;
            changes.add(new StorageChange.Promised(ballot));
        }
    }

    /**
     * Records a vote. The caller has checked that the ballot is not below the promise and that the
     * instance is {@linkplain #inRange in range}. A decided instance keeps its value: by Paxos any
     * later vote there is for that same value anyway.
     */
    void vote(long instance, Ballot ballot, Value value) {
        promised = Ballot.max(promised, ballot); // the vote's record implies the promise
        Slot slot = slots.computeIfAbsent(instance, i -> new Slot());
        if (!slot.decided) {
            slot.value = value;
        }
        slot.votedBallot = Ballot.max(slot.votedBallot, ballot);
        changes.add(new StorageChange.Voted(instance, ballot, value));
    }

    /** Records that {@code value} is decided at {@code instance} (ignored out of range). */
    void decide(long instance, Value value) {
        if (!inRange(instance)) {
            return;
        }
        Slot slot = slots.computeIfAbsent(instance, i -> new Slot());
        // Decisions are re-sent (to every acceptor, on fetches): record only what is new.
        boolean known = slot.decided && value.equals(slot.value);
        slot.value = value;
        slot.decided = true;
        highestDecided = Math.max(highestDecided, instance);
        if (!known) {
            changes.add(new StorageChange.Decided(instance, value));
        }
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
        long i = Math.max(decidedBelow, trimmedTo + 1);
        for (Map.Entry<Long, Slot> e : slots.tailMap(i, true).entrySet()) {
            if (e.getKey() != i || !e.getValue().decided) {
                break;
            }
            i++;
        }
        decidedBelow = i;
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
        changes.add(new StorageChange.Trimmed(instance));
    }

    /** How many instances are held; never above {@link #capacity()}. */
    public int size() {
        return slots.size();
    }
}
