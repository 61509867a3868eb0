package io.psmr.proxy.net;

import io.psmr.proxy.ClientProxy;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.ReplyChannel;
import io.psmr.kvstore.net.ReplyProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A proxy's end of replies over TCP: keeps one connection to every replica's
 * {@link io.psmr.kvstore.net.ReplyServer}, introduces itself with its proxy id ({@link ReplyProtocol}), and hands
 * every reply it receives to a {@link ReplyChannel}, normally a {@link io.psmr.proxy.ClientProxy}:
 *
 * <pre>{@code
 * ClientProxy proxy = ClientProxy.start(config, orderingClient);
 * ReplyConnector replies = ReplyConnector.start(config.proxyId(), replicaAddresses, proxy, ReplyConnectorConfig.defaults());
 * replies.awaitConnected(replicaAddresses.size(), 10, TimeUnit.SECONDS);
 * }</pre>
 *
 * <h2>Connections</h2>
 * A connection counts as connected once the replica has answered the hello with its welcome: from then on
 * the replica routes this proxy's replies to it. A replica that is down, refuses, closes the connection or
 * sends bad input is connected to again after {@link ReplyConnectorConfig#reconnectMin()}, the delay doubling up
 * to {@link ReplyConnectorConfig#reconnectMax()} (and falling back after a welcome), until the connector is
 * closed. Replies sent while a replica was unreachable are lost; the proxy's retry brings them again.
 *
 * <h2>Bad input</h2>
 * A first frame that is not a welcome for this proxy id, a length prefix above
 * {@link ReplyConnectorConfig#maxFrameBytes()}, a frame that {@link KvCodec#decodeReply} refuses, or a reply for
 * another proxy closes that connection with one WARN line naming the replica and the problem, and counts it
 * ({@link #refusedConnections()}); it then reconnects. The other connections are untouched.
 *
 * <h2>Threads</h2>
 * The connector owns one Netty event-loop thread ({@code psmr-reply-connector-<proxyId>}), which runs every
 * connection. {@link ReplyChannel#onReply} is called on that thread, one reply at a time, in the order each
 * replica sent them: it must not block (a blocked channel stops reading from every replica; the replicas then
 * drop replies to this proxy rather than queue them). An exception it throws is logged and the reply is
 * lost; the connection stays. {@link #connectedCount()} and the counters may be read from any thread;
 * {@link #awaitConnected} and {@link #close()} may be called from any thread but the event loop's.
 */
public final class ReplyConnector implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyConnector.class);

    private final long proxyId;
    private final ReplyChannel channel;
    private final ReplyConnectorConfig config;
    private final EventLoopGroup group;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final List<Link> links = new ArrayList<>();

    /** Guards {@link #connected}; waited on by {@link #awaitConnected}. */
    private final Object monitor = new Object();
    private int connected; // guarded by monitor
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean closed;

    /** The connection to one replica. Event-loop thread only. */
    private final class Link {
        final InetSocketAddress address;
        Channel channel;
        boolean connecting;
        boolean welcomed;
        boolean retryScheduled;
        long backoffMillis;

        Link(InetSocketAddress address) {
            this.address = address;
            this.backoffMillis = config.reconnectMin().toMillis();
        }
    }

    private ReplyConnector(long proxyId, List<InetSocketAddress> replicas, ReplyChannel channel, ReplyConnectorConfig config) {
        this.proxyId = proxyId;
        this.channel = channel;
        this.config = config;
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("psmr-reply-connector-" + proxyId, true),
                NioIoHandler.newFactory());
        this.loop = group.next();
        this.bootstrap = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()));
        for (InetSocketAddress a : replicas) {
            links.add(new Link(Objects.requireNonNull(a, "replica address")));
        }
    }

    /**
     * Starts connecting to every replica in the background and returns at once.
     *
     * @param proxyId  the id this proxy proposes batches under (its replies carry it)
     * @param replicas every replica's {@link io.psmr.kvstore.net.ReplyServer} address
     * @param channel  where replies go; called on the connector's thread, must not block
     * @param config   frame bound and reconnect delays
     */
    public static ReplyConnector start(long proxyId, List<InetSocketAddress> replicas, ReplyChannel channel,
                                       ReplyConnectorConfig config) {
        Objects.requireNonNull(replicas, "replicas");
        ReplyConnector c = new ReplyConnector(proxyId, List.copyOf(replicas), Objects.requireNonNull(channel, "channel"),
                Objects.requireNonNull(config, "config"));
        c.loop.execute(() -> c.links.forEach(c::connect));
        return c;
    }

    /** The proxy id this connector introduces itself with. */
    public long proxyId() {
        return proxyId;
    }

    /** How many replicas have welcomed this proxy and are connected now. */
    public int connectedCount() {
        synchronized (monitor) {
            return connected;
        }
    }

    /**
     * Waits until at least {@code n} replicas are connected (welcomed).
     *
     * @return false if the timeout passed first, or the connector was closed
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitConnected(int n, long timeout, TimeUnit unit) throws InterruptedException {
        if (loop.inEventLoop()) {
            throw new IllegalStateException("awaitConnected would block the connector's own thread");
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (monitor) {
            while (connected < n) {
                long left = deadline - System.nanoTime();
                if (closed || left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(monitor, left);
            }
            return true;
        }
    }

    /** Replies received and handed to the channel. */
    public long received() {
        return received.get();
    }

    /** Connections closed for bad input from a replica (each is then connected again). */
    public long refusedConnections() {
        return refused.get();
    }

    // ------------------------------------------------------------------------------------ connecting

    private void connect(Link link) {
        if (closed) {
            return;
        }
        link.connecting = true;
        Handler handler = new Handler(link);
        ChannelFuture f = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(
                        new LengthFieldBasedFrameDecoder(ReplyProtocol.LENGTH_PREFIX_BYTES + config.maxFrameBytes(), 0,
                                ReplyProtocol.LENGTH_PREFIX_BYTES, 0, ReplyProtocol.LENGTH_PREFIX_BYTES, true),
                        new LengthFieldPrepender(ReplyProtocol.LENGTH_PREFIX_BYTES),
                        handler);
            }
        }).connect(link.address);
        f.addListener((ChannelFuture done) -> {
            link.connecting = false;
            if (!done.isSuccess()) {
                LOG.debug("proxy {}: cannot connect to replica at {}: {}", proxyId, link.address, done.cause().toString());
                scheduleReconnect(link);
                return;
            }
            Channel ch = done.channel();
            if (closed) {
                ch.close();
                return;
            }
            link.channel = ch;
            ch.writeAndFlush(Unpooled.wrappedBuffer(ReplyProtocol.encodeHandshake(proxyId)), ch.voidPromise());
            loop.schedule(() -> {
                if (link.channel == ch && !link.welcomed && ch.isActive()) {
                    handler.refuse(ch, "no welcome within " + config.connectTimeout().toMillis() + " ms");
                }
            }, config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
            ch.closeFuture().addListener(c -> {
                if (link.channel != ch) {
                    return;
                }
                link.channel = null;
                if (link.welcomed) {
                    link.welcomed = false;
                    changeConnected(-1);
                    LOG.debug("proxy {}: connection to replica at {} closed", proxyId, link.address);
                }
                scheduleReconnect(link);
            });
        });
    }

    private void scheduleReconnect(Link link) {
        if (closed || link.retryScheduled) {
            return;
        }
        link.retryScheduled = true;
        long delay = link.backoffMillis;
        link.backoffMillis = Math.min(link.backoffMillis * 2, config.reconnectMax().toMillis());
        try {
            loop.schedule(() -> {
                link.retryScheduled = false;
                if (link.channel == null && !link.connecting) {
                    connect(link);
                }
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            link.retryScheduled = false; // shutting down
        }
    }

    private void changeConnected(int delta) {
        synchronized (monitor) {
            connected += delta;
            monitor.notifyAll();
        }
    }

    /** Reads the welcome, then replies, from one replica. Event-loop thread only. */
    private final class Handler extends ChannelInboundHandlerAdapter {
        private final Link link;

        Handler(Link link) {
            this.link = link;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] frame;
            try {
                frame = ByteBufUtil.getBytes((ByteBuf) msg);
            } finally {
                ReferenceCountUtil.release(msg);
            }
            Channel ch = ctx.channel();
            if (!ch.isActive() || link.channel != ch || closed) {
                return; // refused or superseded; frames still queued in the decoder are ignored
            }
            if (!link.welcomed) {
                long id;
                try {
                    id = ReplyProtocol.decodeHandshake(frame);
                } catch (IllegalArgumentException e) {
                    refuse(ch, "first frame is not a welcome: " + e.getMessage());
                    return;
                }
                if (id != proxyId) {
                    refuse(ch, "welcome for proxy " + id + ", not for this proxy " + proxyId);
                    return;
                }
                link.welcomed = true;
                link.backoffMillis = config.reconnectMin().toMillis();
                changeConnected(+1);
                LOG.debug("proxy {}: connected to replica at {}", proxyId, link.address);
                return;
            }
            KvReply reply;
            try {
                reply = KvCodec.decodeReply(frame);
            } catch (KvDecodeException e) {
                refuse(ch, "malformed reply: " + e.getMessage());
                return;
            }
            if (reply.proxyId() != proxyId) {
                refuse(ch, "a reply for proxy " + reply.proxyId() + " on the connection of proxy " + proxyId);
                return;
            }
            received.incrementAndGet();
            try {
                channel.onReply(reply);
            } catch (RuntimeException e) {
                LOG.error("proxy {}: reply channel threw on {}; reply lost", proxyId, reply, e);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof TooLongFrameException) {
                refuse(ctx.channel(), "a frame longer than maxFrameBytes " + config.maxFrameBytes() + ": " + cause.getMessage());
            } else if (cause instanceof DecoderException) {
                refuse(ctx.channel(), "bad framing: " + cause.getMessage());
            } else if (cause instanceof IOException) {
                LOG.debug("proxy {}: connection to replica at {} failed: {}", proxyId, link.address, cause.toString());
                ctx.close();
            } else {
                refuse(ctx.channel(), cause.toString());
            }
        }

        void refuse(Channel ch, String why) {
            if (!ch.isActive()) {
                return;
            }
            refused.incrementAndGet();
            LOG.warn("proxy {}: closing connection to replica at {}: {}; will reconnect", proxyId, link.address, why);
            ch.close();
        }
    }

    // ------------------------------------------------------------------------------------ close

    /** Closes every connection, stops reconnecting and stops the event-loop thread, waiting for it. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (monitor) {
            monitor.notifyAll();
        }
        try {
            loop.submit(() -> {
                for (Link l : links) {
                    if (l.channel != null) {
                        l.channel.close();
                    }
                }
            }).syncUninterruptibly();
        } catch (RejectedExecutionException e) {
            // already shutting down
        }
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
        LOG.debug("proxy {}: reply connector closed", proxyId);
    }

    @Override
    public String toString() {
        return "ReplyConnector[proxy " + proxyId + ", " + connectedCount() + "/" + links.size() + " replicas"
                + (closed ? ", closed" : "") + "]";
    }
}
