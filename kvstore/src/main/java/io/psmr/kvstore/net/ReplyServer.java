package io.psmr.kvstore.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.ScheduledFuture;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.ReplyRouter;
import io.psmr.ordering.transport.EventLoopThread;
import io.psmr.ordering.transport.FrameServer;
import io.psmr.ordering.transport.LengthFraming;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.RefusalLog;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's {@link ReplyRouter} over TCP: proxies connect to it, say which proxy they are, and
 * receive every reply addressed to them. The handshake and framing are {@link ReplyProtocol}'s;
 * each reply travels as {@link KvCodec#encodeReply} bytes in a length-prefixed frame.
 *
 * <h2>Connections</h2>
 * A proxy's connection starts with a hello naming its proxy id; the server answers with a welcome and
 * from then on routes that proxy's replies to it. A newer connection with the same proxy id replaces
 * the older one, which is closed (a proxy that reconnected before its old connection timed out). A
 * reply for a proxy without a connection is dropped and counted ({@link #dropped()}): the proxy retries
 * its batch and the replica's reply cache answers again.
 *
 * <h2>Bounds</h2>
 * At most {@link ReplyServerConfig#maxConnections()} connections are held (counting ones that have not
 * said hello yet; a replaced connection counts until it is closed). Replies to a connection wait in its
 * outbox until the event loop hands them to the socket's buffer. When either holds
 * {@link ReplyServerConfig#writeHighWaterBytes()} or more (the buffer becomes writable again once it drains
 * to half the mark), further replies to that proxy are dropped and counted. So a proxy that stops reading
 * costs at most about twice the mark (plus the kernel's socket buffers), never an unbounded queue.
 *
 * <h2>Bad input</h2>
 * The proxy only ever sends its hello. A connection is closed, with a WARN line naming the peer and the
 * problem (at most one per peer per minute, see {@link RefusalLog}), and counted in {@link #refusedConnections()}, when its first frame is not a valid hello, when a
 * length prefix announces more than a hello's {@value ReplyProtocol#HANDSHAKE_BYTES} bytes (refused as
 * soon as the prefix is read), when any frame follows the hello, when no hello comes within
 * {@link ReplyServerConfig#helloTimeout()}, or when it would exceed the connection bound. The other
 * connections are untouched.
 *
 * <h2>Threads</h2>
 * The server owns one Netty event-loop thread ({@code psmr-reply-server-*}), which accepts, reads and
 * writes every connection. {@link #route} may be called from any number of threads at once (the
 * replica's workers and delivery thread); it encodes the reply on the calling thread, hands it to the
 * connection's outbox (a lock-free queue drained by the event loop) and returns: it never blocks and never
 * waits for the network. Replies routed
 * from one thread to one connection are sent in the order routed. The counters and
 * {@link #localAddress()} may be read from any thread; {@link #close()} may be called from any thread but
 * the event loop's.
 */
public final class ReplyServer implements ReplyRouter, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyServer.class);

    private final ReplyServerConfig config;
    private final EventLoopThread thread;
    private final EventLoop loop;
    private final RefusalLog refusals;
    private final FrameServer server;
    private final InetSocketAddress localAddress;

    /** The outbox of each proxy's identified connection. Written on the event loop, read by {@link #route} callers. */
    private final ConcurrentHashMap<Long, Outbox> byProxy = new ConcurrentHashMap<>();

    private final LongAdder routed = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private volatile boolean closed;

    private ReplyServer(InetSocketAddress bind, ReplyServerConfig config) {
        this.config = config;
        this.thread = EventLoopThread.start("psmr-reply-server");
        this.loop = thread.loop();
        this.refusals = RefusalLog.perMinute(LOG, this::name);
        // A proxy sends only its hello, so no frame may be longer than one.
        FrameServer.Limits limits = new FrameServer.Limits(ReplyProtocol.HANDSHAKE_BYTES, config.maxConnections(),
                config.writeHighWaterBytes());
        try {
            this.server = FrameServer.bind(loop, bind, limits, refusals, config.security(), LinkSecurity.Admit.MEMBERS, this::accept);
        } catch (RuntimeException e) {
            thread.shutdown();
            throw e instanceof UncheckedIOException io
                    ? new UncheckedIOException("reply server " + io.getMessage(), io.getCause()) : e;
        }
        this.localAddress = server.localAddress();
        LOG.debug("reply server listening on {}", localAddress);
    }

    private String name() {
        return "reply server " + server.localAddress();
    }

    /**
     * Binds {@code bind} (port 0 picks a free port, see {@link #localAddress()}) and starts serving.
     *
     * @throws UncheckedIOException naming the address, if it cannot be bound (for example the port is taken)
     */
    public static ReplyServer start(InetSocketAddress bind, ReplyServerConfig config) {
        return new ReplyServer(Objects.requireNonNull(bind, "bind"), Objects.requireNonNull(config, "config"));
    }

    /** The address the server listens on. */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** The settings it runs with. */
    public ReplyServerConfig config() {
        return config;
    }

    /**
     * Sends {@code reply} to its proxy's connection, or drops and counts it if the proxy has no connection,
     * its connection is over the write high-water mark, the reply is larger than
     * {@link ReplyServerConfig#maxFrameBytes()}, or the server is closed. Thread-safe; never blocks.
     */
    @Override
    public void route(KvReply reply) {
        Outbox out = closed ? null : byProxy.get(reply.proxyId());
        // isWritable is false once the connection is closed, and while its socket buffer holds more than
        // the mark; the outbox's own count covers replies not yet handed to the socket.
        if (out == null || !out.channel.isWritable() || out.queuedBytes.get() >= config.writeHighWaterBytes()) {
            dropped.increment();
            return;
        }
        byte[] body = KvCodec.encodeReply(reply);
        if (body.length > config.maxFrameBytes()) {
            dropped.increment();
            LOG.warn("dropping reply to proxy {} (batch {}, index {}): {} bytes, more than maxFrameBytes {}", reply.proxyId(),
                    reply.batchId(), reply.index(), body.length, config.maxFrameBytes());
            return;
        }
        out.offer(body);
        routed.increment();
    }

    /**
     * The replies on their way to one connection. Routing threads {@link #offer} into a lock-free queue and
     * schedule one drain task; the drain, on the event loop, writes everything queued and flushes once, so
     * a burst of replies costs one system call, not one each. The schedule flag is cleared before the
     * queue is drained, so an offer that sees it set is always picked up by the pending drain.
     */
    private final class Outbox implements Runnable {
        final Channel channel;
        final ConcurrentLinkedQueue<byte[]> queue = new ConcurrentLinkedQueue<>();
        final AtomicLong queuedBytes = new AtomicLong();
        final AtomicBoolean scheduled = new AtomicBoolean();

        Outbox(Channel channel) {
            this.channel = channel;
        }

        void offer(byte[] body) {
            queuedBytes.addAndGet(body.length);
            queue.offer(body);
            if (scheduled.compareAndSet(false, true)) {
                try {
                    loop.execute(this);
                } catch (RejectedExecutionException e) {
                    // closing: the connection and its outbox are going away
                }
            }
        }

        @Override
        public void run() {
            scheduled.set(false);
            boolean wrote = false;
            byte[] body;
            while ((body = queue.poll()) != null) {
                queuedBytes.addAndGet(-body.length);
                if (channel.isActive()) {
                    channel.write(Unpooled.wrappedBuffer(body), channel.voidPromise());
                    wrote = true;
                }
            }
            if (wrote) {
                channel.flush();
            }
        }
    }

    /** Replies handed to a proxy's connection. */
    public long routed() {
        return routed.sum();
    }

    /** Replies dropped: no connection for their proxy, connection not writable, too large, or server closed. */
    public long dropped() {
        return dropped.sum();
    }

    /** Connections closed for bad input, a missing hello, or over the connection bound. */
    public long refusedConnections() {
        return refusals.refusals();
    }

    /** How many proxies have an identified connection now. */
    public int connectedProxies() {
        return byProxy.size();
    }

    // ------------------------------------------------------------------------------------ connections

    /** Adds the hello-reading handler to a new connection, after the server's framing, and starts its hello timer. */
    private void accept(SocketChannel ch) {
        if (closed) {
            ch.close();
            return;
        }
        Connection handler = new Connection();
        ch.pipeline().addLast(handler);
        handler.helloTimer = loop.schedule(() -> {
            if (handler.proxyId == null && ch.isActive()) {
                handler.refuse(ch, "no hello within " + config.helloTimeout().toMillis() + " ms");
            }
        }, config.helloTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One connection: reads the hello, then refuses anything else. Event-loop thread only. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        Long proxyId;
        ScheduledFuture<?> helloTimer;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] frame = LengthFraming.take(msg);
            Channel ch = ctx.channel();
            if (!ch.isActive()) {
                return; // already refused; frames still queued in the decoder are ignored
            }
            if (proxyId != null) {
                refuse(ch, "a " + frame.length + "-byte frame after the hello (a proxy sends nothing after it)");
                return;
            }
            long id;
            try {
                id = ReplyProtocol.decodeHandshake(frame);
            } catch (IllegalArgumentException e) {
                refuse(ch, "first frame is not a hello: " + e.getMessage());
                return;
            }
            if (closed) {
                ch.close();
                return;
            }
            proxyId = id;
            helloTimer.cancel(false);
            // Published before the welcome goes out, so that a reply routed as soon as the proxy sees the
            // welcome finds the connection. The welcome still precedes every reply: replies reach the socket
            // only through the outbox's drain, a later task on this same thread.
            Outbox older = byProxy.put(id, new Outbox(ch));
            ch.writeAndFlush(Unpooled.wrappedBuffer(ReplyProtocol.encodeHandshake(id)), ch.voidPromise());
            if (older != null) {
                LOG.info("reply server {}: proxy {} connected again from {}; closing its older connection from {}",
                        localAddress, id, ch.remoteAddress(), older.channel.remoteAddress());
                older.channel.close();
            } else {
                LOG.debug("reply server {}: proxy {} connected from {}", localAddress, id, ch.remoteAddress());
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (proxyId != null) {
                Outbox out = byProxy.get(proxyId);
                if (out != null && out.channel == ctx.channel() && byProxy.remove(proxyId, out)) {
                    LOG.debug("reply server {}: proxy {} disconnected", localAddress, proxyId);
                }
            }
            if (helloTimer != null) {
                helloTimer.cancel(false);
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            String why = LengthFraming.refusalReason(cause, ReplyProtocol.HANDSHAKE_BYTES);
            if (why == null) {
                // The peer went away (reset, broken pipe): not bad input.
                LOG.debug("reply server {}: connection from {} failed: {}", localAddress, describe(ctx.channel()), cause.toString());
                ctx.close();
            } else {
                refuse(ctx.channel(), why);
            }
        }

        void refuse(Channel ch, String why) {
            refusals.refuse(ch, proxyId == null ? RefusalLog.hostOf(ch) : proxyId, describe(ch), why);
        }

        private String describe(Channel ch) {
            return (proxyId == null ? "unidentified peer" : "proxy " + proxyId) + " at " + ch.remoteAddress();
        }
    }

    // ------------------------------------------------------------------------------------ close

    /**
     * Stops accepting, closes every connection and the port, and stops the event-loop thread, waiting for
     * it. Replies routed afterwards are dropped and counted. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        thread.shutdown(server::close);
        byProxy.clear();
        LOG.debug("reply server {} closed", localAddress);
    }

    @Override
    public String toString() {
        return "ReplyServer[" + localAddress + ", " + byProxy.size() + " proxies" + (closed ? ", closed" : "") + "]";
    }
}
