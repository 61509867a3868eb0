package io.psmr.kvstore;

/**
 * Where a replica sends its replies: routes each {@link KvReply} to the proxy named by its
 * {@link KvReply#proxyId()}. {@link LocalReplyRouter} does it in process;
 * {@link io.psmr.kvstore.net.ReplyServer} sends {@link KvCodec#encodeReply} bytes to the proxy's TCP
 * connection.
 *
 * <p><b>Threads.</b> Called from a replica's worker threads and its delivery thread, concurrently;
 * must be thread-safe and must not block for long. A reply to an unknown proxy is dropped (and
 * counted by implementations), never an error: the proxy may be gone, or the batch's header garbled.
 */
@FunctionalInterface
public interface ReplyRouter {

    /** Sends {@code reply} towards its proxy. */
    void route(KvReply reply);
}
