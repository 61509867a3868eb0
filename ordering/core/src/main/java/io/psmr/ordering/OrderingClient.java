package io.psmr.ordering;

import java.util.concurrent.CompletableFuture;

/**
 * The proposing half of an ordering layer: what a client proxy needs to have its batches ordered,
 * and nothing about delivery. Every {@link AtomicBroadcast} is one; a network client that only
 * proposes (a Ring Paxos proposer in a load-generator process, a Ratis client) implements just this.
 *
 * <h2>Proposals</h2>
 * {@link #propose} returns a future that completes once the value is ordered. It completes with
 * the value's instance when the implementation knows it ({@link AtomicBroadcast} always does), or
 * with {@link #UNKNOWN_INSTANCE} when it learns only <em>that</em> the value was ordered. It fails,
 * and the value is not ordered, with {@link OverloadedException}, {@link BroadcastClosedException}
 * or {@link IllegalStateException} as described in {@link AtomicBroadcast}. An implementation that
 * cannot tell whether a value it already sent was ordered (a network client closed or cut off
 * mid-request) fails the future with {@link OutcomeUnknownException} instead: the value may be
 * delivered, and only a layer that deduplicates may propose it again.
 *
 * <h2>Thread safety</h2>
 * All methods may be called from any thread, concurrently. Futures may complete on an
 * implementation thread: dependent stages must not block.
 */
public interface OrderingClient extends AutoCloseable {

    /** What a proposal's future carries when the value was ordered but its instance is not known here. */
    long UNKNOWN_INSTANCE = 0;

    /**
     * Opens the client for proposals. Idempotent while open.
     *
     * @throws IllegalStateException if closed
     */
    void start();

    /**
     * Proposes a value for ordering; the client keeps its own copy.
     *
     * @param value the value, not null, at most the implementation's maximum value size
     * @return a future that completes with the value's instance (or {@link #UNKNOWN_INSTANCE}) once ordered
     * @throws IllegalArgumentException if {@code value} is null or too large
     */
    CompletableFuture<Long> propose(byte[] value);

    /** Closes the client: new and waiting proposals fail with {@link BroadcastClosedException}. Idempotent. */
    @Override
    void close();
}
