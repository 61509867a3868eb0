package io.psmr.scheduler;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The applied index of a replica whose log entries execute in parallel: the highest log index up to
 * which every entry has executed. Entries are registered in log order and complete in any order
 * (batches that do not conflict run in parallel); the applied index advances only over a gap-free
 * run of completed entries, so it never runs ahead of what has executed. This is the index a stack
 * may report as applied, snapshot at, and compact its log up to.
 *
 * <p>Each entry carries a term, which the applied index only carries along: Raft's term, a view or
 * an epoch, so that the stack can name the applied position as it must ({@code 0} where it has
 * none).
 *
 * <p><b>Who calls what.</b>
 * <ul>
 *   <li>The thread that delivers the log to the {@link Scheduler}, in log order, calls
 *       {@link #register} for each entry <em>before</em> {@link Scheduler#deliver} (a rejected batch
 *       completes inside {@code deliver}). An entry that has no batch (a configuration entry, a
 *       refused one) is registered and then completed at once: it counts behind the batches before
 *       it.</li>
 *   <li>{@link #complete} is called once per registered entry, from any thread: for a batch, from
 *       {@link ResultSink#onBatchComplete}, on the worker that ran its last command.</li>
 *   <li>{@link #reset} is called when the state is replaced by a snapshot's (at start, or when a
 *       leader's snapshot is installed), only while no entry is in flight: after
 *       {@link Scheduler#awaitIdle}, on the delivering thread, so that nothing is registered meanwhile.</li>
 *   <li>{@link #index}, {@link #term}, {@link #lastRegistered} and {@link #inFlight} may be called
 *       from any thread.</li>
 * </ul>
 *
 * <p><b>What it publishes.</b> Every method holds this object's monitor. So a thread that reads an
 * applied index {@code i} from {@link #index} (or from the {@link Listener}) sees every effect of
 * the execution of every entry up to {@code i}, provided each entry's {@link #complete} was called
 * after it executed, as {@link ResultSink#onBatchComplete} is. The {@link Listener} hears of each
 * advance in increasing order, on the completing thread, while the monitor is held: it must not
 * block, and it must not wait for another thread that calls into this object.
 *
 * <p><b>Memory.</b> Bounded by the entries registered and not yet behind the applied index: at most
 * the scheduler's pending batches ({@code maxPending}), plus the entries without a batch queued
 * behind them.
 */
public final class AppliedIndex {

    /**
     * Hears of each advance of the applied index: for a stack that must be told, in increasing order
     * (Ratis' {@code updateLastAppliedTermIndex}, say).
     */
    @FunctionalInterface
    public interface Listener {
        /**
         * The applied index is now {@code index}, of term {@code term}. Called on the thread that
         * completed the entry, with the applied index's monitor held, in increasing order of
         * {@code index}.
         */
        void advanced(long term, long index);
    }

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

    private final Listener listener;
    private final ArrayDeque<Entry> inFlight = new ArrayDeque<>();
    private final Map<Long, Entry> byIndex = new HashMap<>();
    private long appliedTerm;
    private long appliedIndex = -1;

    /** An applied index at {@code -1} (nothing applied), of term 0, that tells no one of its advances. */
    public AppliedIndex() {
        this((term, index) -> { });
    }

    /** An applied index at {@code -1} (nothing applied), of term 0, that tells {@code listener} of each advance. */
    public AppliedIndex(Listener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        this.listener = listener;
    }

    /**
     * Starts over at {@code (term, index)}: what a snapshot covers. Entries up to {@code index} are
     * then refused by {@link #register}, so a log replayed from its start skips them. The listener is
     * not told.
     *
     * @throws IllegalStateException if an entry is in flight
     */
    public synchronized void reset(long term, long index) {
        if (!inFlight.isEmpty()) {
            throw new IllegalStateException("cannot reset the applied index to " + index + " with "
                    + inFlight.size() + " entries in flight, the first at " + inFlight.peekFirst().index);
        }
        appliedTerm = term;
        appliedIndex = index;
    }

    /**
     * Registers the next entry of the log. Call it in log order, from the delivering thread, before
     * the entry's batch is delivered.
     *
     * @return false, registering nothing, if {@code index} is not after the last registered one (or
     *         after the index a {@link #reset} set): the entry was already applied, or came out of order
     */
    public synchronized boolean register(long term, long index) {
        if (index <= lastRegistered()) {
            return false;
        }
        Entry e = new Entry(term, index);
        inFlight.addLast(e);
        byIndex.put(index, e);
        return true;
    }

    /** {@link #register(long, long)} with term 0, for a stack without terms. */
    public boolean register(long index) {
        return register(0, index);
    }

    /** The index of the last registered entry, executed or not; the applied index if none is in flight. */
    public synchronized long lastRegistered() {
        return inFlight.isEmpty() ? appliedIndex : inFlight.peekLast().index;
    }

    /**
     * Marks the entry at {@code index} executed. If that closes the gap at the front, the applied
     * index advances over every executed entry behind it, and the listener is told of the new one.
     *
     * @return whether the applied index advanced
     * @throws IllegalArgumentException if {@code index} is not registered and in flight
     */
    public synchronized boolean complete(long index) {
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
        if (advanced) {
            listener.advanced(appliedTerm, appliedIndex);
        }
        return advanced;
    }

    /** The highest index up to which every registered entry has executed; -1 before any. */
    public synchronized long index() {
        return appliedIndex;
    }

    /** The term of {@link #index()}. */
    public synchronized long term() {
        return appliedTerm;
    }

    /** Entries registered and not yet behind the applied index. */
    public synchronized int inFlight() {
        return inFlight.size();
    }

    @Override
    public synchronized String toString() {
        return "applied index " + appliedIndex + " (term " + appliedTerm + "), " + inFlight.size() + " in flight";
    }
}
