/**
 * The TCP plumbing every psmr transport shares, on Netty: an {@link io.psmr.ordering.transport.EventLoopThread}
 * that owns a component's sockets, {@link io.psmr.ordering.transport.ReconnectingLink} (one outbound connection
 * to a peer, reconnected with {@link io.psmr.ordering.transport.Backoff} per a
 * {@link io.psmr.ordering.transport.ReconnectPolicy}), {@link io.psmr.ordering.transport.FrameServer} (a bound
 * port whose connections carry {@link io.psmr.ordering.transport.LengthFraming} frames, with a connection bound)
 * and {@link io.psmr.ordering.transport.RefusalLog} (closing a bad peer's connection, counting it and warning at
 * most once per peer per interval). What travels in the frames (hello, messages, authentication) is the
 * caller's: Ring Paxos nodes, reply servers and connectors, and later PBFT's links plug their own handlers in.
 */
package io.psmr.ordering.transport;
