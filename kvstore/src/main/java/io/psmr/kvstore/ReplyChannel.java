package io.psmr.kvstore;

/**
 * A proxy's inbox for replies: what a client proxy registers with a {@link LocalReplyRouter}, or
 * what the proxy's network transport ({@code io.psmr.proxy.net.ReplyConnector}) feeds.
 *
 * <p><b>Threads.</b> Called from every replica's worker threads and delivery threads (in process), or
 * from a network transport's event-loop thread, concurrently:
 * implementations must be thread-safe and must not block (hand the reply to a queue or complete a
 * future); a blocked channel stalls a replica's worker.
 */
@FunctionalInterface
public interface ReplyChannel {

    /** A reply from some replica. Replies for one command come from each replica, in any order. */
    void onReply(KvReply reply);
}
