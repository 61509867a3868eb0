package io.psmr.kvstore;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process {@link ReplyRouter}: proxies in the same JVM {@link #register} a
 * {@link ReplyChannel} under their proxy id; every replica routes to the channel of the reply's
 * proxy. One router is shared by all replicas and proxies of an embedded cluster.
 *
 * <p>Thread-safe. Replies to an unregistered proxy are dropped and counted ({@link #dropped()}). An
 * exception thrown by a channel is logged and counted as a drop; it never reaches the replica.
 */
public final class LocalReplyRouter implements ReplyRouter {

    private static final Logger LOG = LoggerFactory.getLogger(LocalReplyRouter.class);

    private final ConcurrentHashMap<Long, ReplyChannel> channels = new ConcurrentHashMap<>();
    private final LongAdder routed = new LongAdder();
    private final LongAdder dropped = new LongAdder();

    /**
     * Registers the inbox of proxy {@code proxyId}.
     *
     * @return a handle whose {@code close()} unregisters it
     * @throws IllegalStateException if another channel is registered under that id
     */
    public AutoCloseable register(long proxyId, ReplyChannel channel) {
        Objects.requireNonNull(channel, "channel");
        ReplyChannel old = channels.putIfAbsent(proxyId, channel);
        if (old != null) {
            throw new IllegalStateException("proxy id " + proxyId + " is already registered");
        }
        return () -> channels.remove(proxyId, channel);
    }

    @Override
    public void route(KvReply reply) {
        ReplyChannel ch = channels.get(reply.proxyId());
        if (ch == null) {
            dropped.increment();
            return;
        }
        try {
            ch.onReply(reply);
            routed.increment();
        } catch (RuntimeException e) {
            dropped.increment();
            LOG.error("reply channel of proxy {} threw; reply dropped", reply.proxyId(), e);
        }
    }

    /** Replies handed to a channel. */
    public long routed() {
        return routed.sum();
    }

    /** Replies dropped: no channel for their proxy, or the channel threw. */
    public long dropped() {
        return dropped.sum();
    }
}
