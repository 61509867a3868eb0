package io.psmr.kvstore.cluster.links;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import io.psmr.ordering.transport.SocketIo;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One TCP port of a fault-injecting link: it accepts the connections one node makes to one port of another and relays
 * their bytes, both ways, to that port, under a {@link LinkCondition} that can change at any time, as a Toxiproxy proxy
 * does. {@link #reset()} closes every connection it relays with a TCP reset.
 *
 * <p>Each relayed connection pair lives on one event loop of the group; bytes are read only while the other side can
 * take them and fewer than {@value #MAX_PENDING_BYTES} wait in a delay, so a slow or blackholed link holds at most
 * that much per direction and leaves the rest in the kernel's socket buffers, where TCP's flow control stops the
 * sender. Order within a direction is kept: a chunk never passes an earlier one.
 *
 * <p>{@link #condition(LinkCondition)}, {@link #reset()} and {@link #close()} may be called from any thread; the relay
 * runs on the group's event loops.
 */
public final class LinkProxy implements AutoCloseable {

    /** Most bytes one direction of one connection holds in delays before it stops reading. */
    static final int MAX_PENDING_BYTES = 1 << 20;

    private final InetSocketAddress target;
    private final EventLoopGroup group;
    private final SplittableRandom jitterSeed;
    private final Set<Pair> pairs = ConcurrentHashMap.newKeySet();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private volatile LinkCondition condition = LinkCondition.PASS;
    private volatile Channel server;

    /**
     * A link to {@code target}, not yet listening.
     *
     * @param seed seeds the jitter of its delays
     */
    public LinkProxy(InetSocketAddress target, EventLoopGroup group, long seed) {
        this.target = target;
        this.group = group;
        this.jitterSeed = new SplittableRandom(seed);
    }

    /**
     * Listens on {@code host}, on {@code port} (0: an ephemeral one).
     *
     * @return the port it listens on
     * @throws IllegalStateException naming the address, if it cannot listen there
     */
    public int listen(String host, int port) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(SocketIo.current().serverSocketChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Pair(ch).inboundHandler());
                    }
                });
        var f = b.bind(host, port).await();
        if (!f.isSuccess()) {
            throw new IllegalStateException("a link to " + target + " cannot listen on " + host + ":" + port + ": "
                    + f.cause().getMessage(), f.cause());
        }
        server = f.channel();
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Where it relays to. */
    public InetSocketAddress target() {
        return target;
    }

    /** What it does to bytes now. */
    public LinkCondition condition() {
        return condition;
    }

    /** Changes what it does to bytes, for the connections it relays and those to come. */
    public void condition(LinkCondition c) {
        condition = java.util.Objects.requireNonNull(c, "condition");
        for (Pair p : pairs) {
            p.inbound.eventLoop().execute(p::conditionChanged);
        }
    }

    /** Closes every connection it relays now, with a TCP reset on both sides; later connections are relayed. */
    public void reset() {
        for (Pair p : pairs) {
            p.inbound.eventLoop().execute(p::reset);
        }
    }

    /** Bytes relayed so far, both directions. */
    public long bytes() {
        return bytes.get();
    }

    /** Connections accepted so far. */
    public long connectionsAccepted() {
        return accepted.get();
    }

    /** Connections open now. */
    public int connectionsOpen() {
        return pairs.size();
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        Channel s = server;
        if (s != null) {
            s.close().syncUninterruptibly();
        }
        for (Pair p : pairs) {
            p.inbound.close();
        }
    }

    private long jitterNanos(long jitterMicros) {
        if (jitterMicros == 0) {
            return 0;
        }
        synchronized (jitterSeed) {
            return TimeUnit.MICROSECONDS.toNanos(jitterSeed.nextLong(jitterMicros + 1));
        }
    }

    /** One relayed connection: the one accepted and the one made to the target. Event loop only, but for the set. */
    private final class Pair {
        final Channel inbound;
        Channel outbound;
        boolean connecting;
        Pipe up;
        Pipe down;

        Pair(Channel inbound) {
            this.inbound = inbound;
        }

        ChannelInboundHandlerAdapter inboundHandler() {
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.incrementAndGet();
                    pairs.add(Pair.this);
                    conditionChanged();
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (up == null) {
                        ReferenceCountUtil.release(msg); // not connected: nothing was asked to be read
                    } else {
                        up.onRead((ByteBuf) msg);
                    }
                }

                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    if (down != null) {
                        down.maybeRead();
                    }
                }

                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                    pairs.remove(Pair.this);
                    release();
                    if (outbound != null) {
                        outbound.close();
                    }
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    ctx.close();
                }
            };
        }

        /** Connects once the link lets bytes through, and resumes reading. */
        void conditionChanged() {
            if (!inbound.isActive()) {
                return;
            }
            if (outbound == null) {
                if (!condition.blackhole() && !connecting) {
                    connect();
                }
                return;
            }
            up.conditionChanged();
            down.conditionChanged();
        }

        private void connect() {
            connecting = true;
            new Bootstrap()
                    .group(inbound.eventLoop())
                    .channel(SocketIo.current().socketChannel())
                    .option(ChannelOption.AUTO_READ, false)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            down.onRead((ByteBuf) msg);
                        }

                        @Override
                        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                            if (up != null) {
                                up.maybeRead();
                            }
                        }

                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) {
                            inbound.close();
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            ctx.close();
                        }
                    })
                    .connect(target)
                    .addListener((ChannelFutureListener) f -> {
                        connecting = false;
                        if (!f.isSuccess()) {
                            inbound.close(); // as the target would have refused it
                            return;
                        }
                        outbound = f.channel();
                        if (outbound.localAddress().equals(outbound.remoteAddress())) {
                            // Linux may give a connection to a port nobody listens on that very port as its own:
                            // a connection to itself, which would hold the client for ever. Refused, as it is.
                            outbound.close();
                            inbound.close();
                            return;
                        }
                        if (!inbound.isActive()) {
                            outbound.close();
                            return;
                        }
                        up = new Pipe(inbound, outbound);
                        down = new Pipe(outbound, inbound);
                        up.conditionChanged();
                        down.conditionChanged();
                    });
        }

        void reset() {
            abort(inbound);
            if (outbound != null) {
                abort(outbound);
            }
        }

        private void abort(Channel ch) {
            if (ch.isActive()) {
                ch.config().setOption(ChannelOption.SO_LINGER, 0); // close() sends RST, not FIN
            }
            ch.close();
        }

        void release() {
            if (up != null) {
                up.release();
                down.release();
            }
        }
    }

    /** One direction of a pair. Event loop only. */
    private final class Pipe {
        final Channel from;
        final Channel to;
        final ArrayDeque<ByteBuf> held = new ArrayDeque<>(); // read while a blackhole began
        final ArrayDeque<Delayed> delayed = new ArrayDeque<>(); // release times never decrease
        long pendingBytes;
        long lastReleaseNanos;

        Pipe(Channel from, Channel to) {
            this.from = from;
            this.to = to;
        }

        void onRead(ByteBuf buf) {
            if (condition.blackhole() || !held.isEmpty()) {
                held.add(buf);
                return;
            }
            relay(buf);
            maybeRead();
        }

        private void relay(ByteBuf buf) {
            LinkCondition c = condition;
            int size = buf.readableBytes();
            long now = System.nanoTime();
            long release = now + TimeUnit.MICROSECONDS.toNanos(c.delayMicros()) + jitterNanos(c.jitterMicros());
            if (c.bytesPerSecond() > 0) {
                long start = Math.max(now, lastReleaseNanos);
                release = Math.max(release, start + size * 1_000_000_000L / c.bytesPerSecond());
            }
            release = Math.max(release, lastReleaseNanos);
            lastReleaseNanos = release;
            pendingBytes += size;
            if (delayed.isEmpty() && release <= now) {
                write(buf, size);
            } else {
                // One queue and one timer per direction: separately scheduled writes could overtake each other,
                // since the loop takes each delay from the moment it is scheduled.
                delayed.add(new Delayed(release, buf));
                if (delayed.size() == 1) {
                    to.eventLoop().schedule(this::drainDelayed, release - now, TimeUnit.NANOSECONDS);
                }
            }
        }

        private void drainDelayed() {
            long now = System.nanoTime();
            Delayed d;
            while ((d = delayed.peek()) != null && d.releaseNanos <= now) {
                delayed.poll();
                write(d.buf, d.buf.readableBytes());
            }
            if (d != null) {
                to.eventLoop().schedule(this::drainDelayed, d.releaseNanos - now, TimeUnit.NANOSECONDS);
            }
        }

        private void write(ByteBuf buf, int size) {
            to.writeAndFlush(buf).addListener(f -> {
                pendingBytes -= size;
                if (f.isSuccess()) {
                    bytes.addAndGet(size);
                    maybeRead();
                } else {
                    from.close();
                }
            });
        }

        void conditionChanged() {
            if (!condition.blackhole()) {
                while (!held.isEmpty()) {
                    relay(held.poll());
                }
            }
            maybeRead();
        }

        void maybeRead() {
            if (!condition.blackhole() && held.isEmpty() && pendingBytes < MAX_PENDING_BYTES && to.isWritable()
                    && from.isActive()) {
                from.read();
            }
        }

        void release() {
            ByteBuf b;
            while ((b = held.poll()) != null) {
                b.release();
            }
            Delayed d;
            while ((d = delayed.poll()) != null) {
                d.buf.release();
            }
        }
    }

    /** A chunk that passes at {@code releaseNanos} ({@link System#nanoTime()}). */
    private record Delayed(long releaseNanos, ByteBuf buf) {
    }
}
