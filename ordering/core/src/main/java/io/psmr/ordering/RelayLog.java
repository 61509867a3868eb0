package io.psmr.ordering;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What an {@link AtomicBroadcast} over a network protocol shares with every other one (Ring Paxos, PBFT): its
 * lifecycle, {@code NEW → RUNNING → CLOSED}, which gates proposals, and the retained log through which it relays the
 * values its protocol delivered to subscribers, an internal {@link LocalSequencer} (each subscription on its own
 * delivery thread, the last {@code retainedInstances} values kept). The adapter appends each delivered value in
 * order with {@link #append}; when the slowest subscription is a whole window behind, {@code append} says so at once
 * ({@link #FULL}) and the adapter holds the value and slows its protocol (flow control) instead of memory growing.
 *
 * <p>Proposals, their bound and their futures stay with the adapter: how a value enters the protocol, and what a
 * proposal already handed over means on close, differ per protocol.
 *
 * <p>Thread safety: every method from any thread; {@link #append} from one thread at a time (the adapter's delivery
 * thread), so that instances follow the protocol's order.
 */
public final class RelayLog {

    /** {@link #append}: the slowest subscription is a whole window behind; offer the value again later. */
    public static final long FULL = -1;
    /** {@link #append}: the log is closed; nobody delivers any more. */
    public static final long CLOSED = -2;

    private enum State { NEW, RUNNING, CLOSED }

    private final LocalSequencer log;
    private final Object stateLock = new Object();
    private volatile State state = State.NEW; // written under stateLock

    /**
     * A log built by {@code log} (retention, maximum value size, learners, first instance, thread names are the
     * adapter's), which never waits for room ({@code proposeTimeout(0)}: {@link #append} returns {@link #FULL}).
     * Subscriptions may start at once; proposals are refused until {@link #start()}.
     */
    public RelayLog(LocalSequencer.Builder log) {
        this.log = Objects.requireNonNull(log, "log").proposeTimeout(Duration.ZERO).build();
        this.log.start();
    }

    /**
     * Opens the adapter for proposals. Idempotent while open.
     *
     * @throws IllegalStateException if it is closed
     */
    public void start() {
        synchronized (stateLock) {
            if (state == State.CLOSED) {
                throw new IllegalStateException("broadcast is closed and cannot be started again");
            }
            state = State.RUNNING;
        }
    }

    /**
     * Why a proposal cannot be taken now: a failed future ({@link IllegalStateException} before {@link #start()},
     * {@link BroadcastClosedException} after {@link #close}), or null while running.
     */
    public CompletableFuture<Long> refusal() {
        State s = state;
        if (s == State.NEW) {
            return CompletableFuture.failedFuture(new IllegalStateException("broadcast is not started: call start() before propose()"));
        }
        if (s == State.CLOSED) {
            return CompletableFuture.failedFuture(new BroadcastClosedException("broadcast is closed; the value was not ordered"));
        }
        return null;
    }

    /** Whether {@link #close} has been called. */
    public boolean isClosed() {
        return state == State.CLOSED;
    }

    /**
     * Relays the next value the protocol delivered.
     *
     * @return its instance, or {@link #FULL} (not appended: offer it again later) or {@link #CLOSED} (dropped)
     */
    public long append(byte[] value) {
        try {
            return log.propose(value).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof OverloadedException) {
                return FULL;
            }
            if (e.getCause() instanceof BroadcastClosedException) {
                return CLOSED;
            }
            throw e;
        }
    }

    /** As {@link AtomicBroadcast#subscribe}. */
    public Subscription subscribe(long fromInstance, DeliveryListener listener) {
        return log.subscribe(fromInstance, listener);
    }

    /** The highest instance relayed so far, or the one before the first. */
    public long lastInstance() {
        return log.lastInstance();
    }

    /** As {@link AtomicBroadcast#firstRetainedInstance()}. */
    public long firstRetainedInstance() {
        return log.firstRetainedInstance();
    }

    /**
     * Closes the adapter once: marks it closed (proposals are refused from now on), runs {@code shutdown} (the
     * adapter stops its protocol side), then closes the log as {@link AtomicBroadcast#close()} says.
     *
     * @return true on the first call; false (and nothing run) afterwards
     */
    public boolean close(Runnable shutdown) {
        synchronized (stateLock) {
            if (state == State.CLOSED) {
                return false;
            }
            state = State.CLOSED;
        }
        try {
            shutdown.run();
        } finally {
            log.close();
        }
        return true;
    }
}
