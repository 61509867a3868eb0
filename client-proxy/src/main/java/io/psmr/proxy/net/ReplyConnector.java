package io.psmr.proxy.net;

import io.psmr.proxy.ClientProxy;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.ReplyChannel;
import io.psmr.kvstore.net.ReplyProtocol;
import io.psmr.ordering.transport.EventLoopThread;
import io.psmr.ordering.transport.LengthFraming;
import io.psmr.ordering.transport.ReconnectingLink;
import io.psmr.ordering.transport.RefusalLog;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
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
 * ReplyConnector replies = ReplyConnector.start(config.proxyId(), replyAddressById, proxy, ReplyConnectorConfig.defaults());
 * replies.awaitConnected(replyAddressById.size(), 10, TimeUnit.SECONDS);
 * }</pre>
 *
 * <h2>Connections</h2>
 * A connection ({@link ReconnectingLink}) counts as connected once the replica has answered the hello with its
 * welcome: from then on the replica routes this proxy's replies to it. A replica that is down, refuses, closes the
 * connection or sends bad input is connected to again after {@link ReplyConnectorConfig#reconnectMin()}, the delay doubling up
 * to {@link ReplyConnectorConfig#reconnectMax()} (and falling back after a welcome), until the connector is
 * closed. Replies sent while a replica was unreachable are lost; the proxy's retry brings them again.
 *
 * <h2>Bad input</h2>
 * A first frame that is not a welcome for this proxy id, a length prefix above
 * {@link ReplyConnectorConfig#maxFrameBytes()}, a frame that {@link KvCodec#decodeReply} refuses, or a reply for
 * another proxy closes that connection with a WARN line naming the replica and the problem (at most one per replica
 * per minute, see {@link RefusalLog}), and counts it ({@link #refusedConnections()}); it then reconnects. The other connections are untouched.
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
    private final EventLoopThread thread;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final RefusalLog refusals;
    private final List<Replica> replicas = new ArrayList<>();

    /** Guards {@link #connected}; waited on by {@link #awaitConnected}. */
    private final Object monitor = new Object();
    private int connected; // guarded by monitor
    private final AtomicLong received = new AtomicLong();
    private volatile boolean closed;

    /**
     * The link to one replica, and whether the replica welcomed this proxy on its current connection. Event-loop
     * thread only.
     */
    private final class Replica implements ReconnectingLink.Listener<InetSocketAddress> {
        final int id;
        final InetSocketAddress address;
        final ReconnectingLink<InetSocketAddress> link;
        boolean welcomed;

        Replica(int id, InetSocketAddress address) {
            this.id = id;
            this.address = address;
            this.link = ReconnectingLink.to(address, loop)
                    .address(address)
                    .bootstrap(bootstrap)
                    .initializer(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(LengthFraming.decoder(config.maxFrameBytes()), LengthFraming.prepender(),
                                    new Handler(Replica.this));
                        }
                    })
                    .reconnect(config.reconnectPolicy())
                    .security(config.security())
                    .hello(() -> Unpooled.wrappedBuffer(ReplyProtocol.encodeHandshake(proxyId)))
                    // A replica may accept and then refuse (full, or a bad welcome): back off until it welcomes.
                    .resetBackoffOnConnect(false)
                    .listener(this)
                    .build();
        }

        @Override
        public void onConnected(ReconnectingLink<InetSocketAddress> l, Channel ch) {
            loop.schedule(() -> {
                if (link.channel() == ch && !welcomed && ch.isActive()) {
                    refuse(ch, "no welcome within " + config.connectTimeout().toMillis() + " ms");
                }
            }, config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void onDisconnected(ReconnectingLink<InetSocketAddress> l, Channel ch) {
            if (welcomed) {
                welcomed = false;
                changeConnected(-1);
                LOG.debug("proxy {}: connection to replica at {} closed", proxyId, address);
            }
        }

        void refuse(Channel ch, String why) {
            refusals.refuse(ch, address, "replica " + id + " at " + address, why + "; will reconnect");
        }
    }

    private ReplyConnector(long proxyId, Map<Integer, InetSocketAddress> replicaAddresses, ReplyChannel channel,
                           ReplyConnectorConfig config) {
        this.proxyId = proxyId;
        this.channel = channel;
        this.config = config;
        this.thread = EventLoopThread.start("psmr-reply-connector-" + proxyId);
        this.loop = thread.loop();
        this.bootstrap = ReconnectingLink.clientBootstrap(config.connectTimeout());
        this.refusals = RefusalLog.perMinute(LOG, () -> "proxy " + proxyId);
        new TreeMap<>(replicaAddresses).forEach((id, a) -> replicas.add(new Replica(id, Objects.requireNonNull(a, "replica address"))));
    }

    /**
     * Starts connecting to every replica in the background and returns at once.
     *
     * @param proxyId  the id this proxy proposes batches under (its replies carry it)
     * @param replicas every replica's {@link io.psmr.kvstore.net.ReplyServer} address, by the replica id its replies
     *                 carry: a reply naming another replica on that connection is refused, so a replica can answer
     *                 only for itself (what {@link io.psmr.proxy.ReplyTrust#matching f+1 matching replies} rely on)
     * @param channel  where replies go; called on the connector's thread, must not block
     * @param config   frame bound and reconnect delays
     */
    public static ReplyConnector start(long proxyId, Map<Integer, InetSocketAddress> replicas, ReplyChannel channel,
                                       ReplyConnectorConfig config) {
        Objects.requireNonNull(replicas, "replicas");
        ReplyConnector c = new ReplyConnector(proxyId, Map.copyOf(replicas), Objects.requireNonNull(channel, "channel"),
                Objects.requireNonNull(config, "config"));
        c.loop.execute(() -> c.replicas.forEach(r -> r.link.connectIfIdle()));
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
        return refusals.refusals();
    }

    private void changeConnected(int delta) {
        synchronized (monitor) {
            connected += delta;
            monitor.notifyAll();
        }
    }

    /** Reads the welcome, then replies, from one replica. Event-loop thread only. */
    private final class Handler extends ChannelInboundHandlerAdapter {
        private final Replica replica;

        Handler(Replica replica) {
            this.replica = replica;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] frame = LengthFraming.take(msg);
            Channel ch = ctx.channel();
            if (!ch.isActive() || replica.link.channel() != ch || closed) {
                return; // refused or superseded; frames still queued in the decoder are ignored
            }
            if (!replica.welcomed) {
                long id;
                try {
                    id = ReplyProtocol.decodeHandshake(frame);
                } catch (IllegalArgumentException e) {
                    replica.refuse(ch, "first frame is not a welcome: " + e.getMessage());
                    return;
                }
                if (id != proxyId) {
                    replica.refuse(ch, "welcome for proxy " + id + ", not for this proxy " + proxyId);
                    return;
                }
                replica.welcomed = true;
                replica.link.resetBackoff();
                changeConnected(+1);
                LOG.debug("proxy {}: connected to replica at {}", proxyId, replica.address);
                return;
            }
            KvReply reply;
            try {
                reply = KvCodec.decodeReply(frame);
            } catch (KvDecodeException e) {
                replica.refuse(ch, "malformed reply: " + e.getMessage());
                return;
            }
            if (reply.proxyId() != proxyId) {
                replica.refuse(ch, "a reply for proxy " + reply.proxyId() + " on the connection of proxy " + proxyId);
                return;
            }
            if (reply.replicaId() != replica.id) {
                replica.refuse(ch, "a reply naming replica " + reply.replicaId() + " on the connection of replica " + replica.id);
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
            String why = LengthFraming.refusalReason(cause, config.maxFrameBytes());
            if (why == null) {
                // The replica went away (reset, broken pipe): not bad input.
                LOG.debug("proxy {}: connection to replica at {} failed: {}", proxyId, replica.address, cause.toString());
                ctx.close();
            } else {
                replica.refuse(ctx.channel(), why);
            }
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
        thread.shutdown(() -> replicas.forEach(r -> r.link.close()));
        LOG.debug("proxy {}: reply connector closed", proxyId);
    }

    @Override
    public String toString() {
        return "ReplyConnector[proxy " + proxyId + ", " + connectedCount() + "/" + replicas.size() + " replicas"
                + (closed ? ", closed" : "") + "]";
    }
}
