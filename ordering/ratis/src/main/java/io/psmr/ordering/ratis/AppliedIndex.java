package io.psmr.ordering.ratis;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The contiguous prefix of the log that has executed. Entries are registered in log order and
 * complete in any order (batches run in parallel); the applied index advances only over a gap-free
 * run of completed entries, so it never runs ahead of what has executed.
 *
 * <p>Bounded by the entries registered and not yet behind the applied index: at most the
 * scheduler's pending batches, plus the non-batch entries queued behind them.
 *
 * <p>Thread-safe: {@link #register} from the updater thread, {@link #complete} from any thread.
 */
final class AppliedIndex {

    /** A registered entry: its term and index, and whether it has executed. */
    private static final class Entry {
        final long term;
        final long index;
        boolean done;

        Entry(long term, long index) {
            this.term = term;
            this.index = index;
        }
    }

    private final ArrayDeque<Entry> inFlight = new ArrayDeque<>();
    private final Map<Long, Entry> byIndex = new HashMap<>();
    private long appliedTerm;
    private long appliedIndex = -1;

    /** Starts over at {@code (term, index)}: what a snapshot covers. Only while nothing is in flight. */
    synchronized void reset(long term, long index) {
        if (!inFlight.isEmpty()) {
            throw new IllegalStateException("cannot reset the applied index to " + index + " with "
                    + inFlight.size() + " entries in flight, the first at " + inFlight.peekFirst().index);
        }
        appliedTerm = term;
        appliedIndex = index;
    }

    /**
     * Registers the next entry of the log.
     *
     * @return false, registering nothing, if {@code index} is not after the last registered one
     */
    synchronized boolean register(long term, long index) {
        if (index <= lastRegistered()) {
            return false;
        }
        Entry e = new Entry(term, index);
        inFlight.addLast(e);
        byIndex.put(index, e);
        return true;
    }

    /** The index of the last registered entry, executed or not. */
    synchronized long lastRegistered() {
        return inFlight.isEmpty() ? appliedIndex : inFlight.peekLast().index;
    }

    /**
     * Marks the entry at {@code index} executed.
     *
     * @return the new applied {@code {term, index}} if it advanced, else null
     * @throws IllegalArgumentException if {@code index} is not registered and in flight
     */
    synchronized long[] complete(long index) {
        Entry e = byIndex.remove(index);
        if (e == null) {
            throw new IllegalArgumentException("log index " + index + " is not in flight");
        }
        e.done = true;
        boolean advanced = false;
        while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
            Entry head = inFlight.pollFirst();
            appliedTerm = head.term;
            appliedIndex = head.index;
            advanced = true;
        }
        return advanced ? new long[] {appliedTerm, appliedIndex} : null;
    }

    /** The highest index up to which every registered entry has executed. */
    synchronized long index() {
        return appliedIndex;
    }

    /** The term of {@link #index()}. */
    synchronized long term() {
        return appliedTerm;
    }

    /** Entries registered and not yet behind the applied index. */
    synchronized int inFlight() {
        return inFlight.size();
    }
}
