package io.psmr.ordering.protocol;

/**
 * A protocol core as a pure state machine, after etcd's raft ({@code Step}, {@code Tick}, {@code Ready},
 * {@code Advance}): messages and ticks go in, and what they produce waits in a {@link Ready}. A core reads no clock,
 * starts no thread, touches no socket or file and draws no random number, so the same inputs always give the same
 * outputs. Each protocol adds its own inputs (a proposal, a checkpoint digest) to these.
 *
 * <p>The host drives it in a loop:
 * <pre>{@code
 * core.step(message);            // or core.tick(), or a protocol-specific input
 * Ready<M, W, O> ready = core.ready();
 * persist(ready.writes());       // durable before any message of this Ready leaves
 * send(ready.messages());
 * apply(ready.outputs());
 * core.advance(ready);
 * }</pre>
 *
 * <p>Not thread-safe: the host calls every method from one thread, and none blocks.
 *
 * @param <M> the messages it exchanges with its peers
 * @param <W> the changes to its durable state it asks its host to persist ({@link Void} for a core with none)
 * @param <O> the outputs it hands to its host: deliveries, commits, acknowledgements
 */
public interface ProtocolCore<M, W, O> {

    /**
     * Handles one message addressed to this core. Malformed or unexpected messages (wrong receiver, stale view or
     * ballot, outside the bounded window, a bad signature) are ignored or counted, never obeyed.
     */
    void step(M message);

    /** Advances this core's notion of time by one tick: heartbeats, timeouts and retransmissions. */
    void tick();

    /**
     * Everything produced since the last {@code ready()}, or an empty {@link Ready} if nothing was.
     *
     * @throws IllegalStateException if the previous non-empty Ready was not {@linkplain #advance advanced}
     */
    Ready<M, W, O> ready();

    /**
     * Confirms that the host has made {@code ready}'s writes durable, sent its messages and taken its outputs. An
     * empty Ready needs no confirmation (confirming one does nothing).
     *
     * @throws IllegalArgumentException if {@code ready} is not the last Ready this core returned
     */
    void advance(Ready<M, W, O> ready);
}
