package io.psmr.ordering.ringpaxos;

/**
 * One Ring Paxos node as a pure state machine. Its state changes only in {@link #step} and
 * {@link #tick}; its outputs wait in {@link #ready()}. It reads no clock, starts no thread, touches
 * no socket and draws no random number, so the same inputs always give the same outputs.
 *
 * <p>Not thread-safe: the host calls it from one thread.
 */
public interface ProtocolNode {

    /** This node's id, unique in the cluster. */
    int id();

    /**
     * Handles one message addressed to this node. Malformed or unexpected messages (wrong
     * receiver, stale ballot, an instance out of the bounded window) are ignored, never obeyed.
     */
    void step(Message message);

    /** Advances this node's notion of time by one tick: heartbeats, timeouts and retries. */
    void tick();

    /** Returns and clears the outputs produced since the last call. */
    Ready ready();
}
