package io.psmr.ordering.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One outbound connection to one peer, kept up until the link is closed: connects, and whenever the attempt fails
 * or the connection closes, connects again after a {@link Backoff} delay (from {@link ReconnectPolicy#min()},
 * doubling up to {@link ReconnectPolicy#max()}). On each new connection it resets the backoff (unless the caller
 * resets it itself after its own handshake, see {@link Builder#resetBackoffOnConnect}), writes the hello if one is
 * configured, and tells its {@link Listener}. After {@link #close()} it never connects again.
 *
 * <p>The caller supplies what is protocol: the peer's id (any type, used in log lines), where it listens (asked
 * again at each attempt, so it may become known late), the channel initializer (framing, handshake,
 * authentication, the handler that reads) and the hello. So Ring Paxos links, reply connections and PBFT's
 * per-pillar links share this one lifecycle.
 *
 * <h2>Threads</h2>
 * A link belongs to one {@link EventLoop}: its connections are registered there, its retries are scheduled there,
 * and its listener is called there. {@link #connectIfIdle()}, {@link #channel()}, {@link #isConnected()} and
 * {@link #resetBackoff()} must be called on that loop. {@link #close()} may be called from any thread. Nothing
 * blocks.
 *
 * @param <P> the type of the peer's id
 */
public final class ReconnectingLink<P> {

    private static final Logger LOG = LoggerFactory.getLogger(ReconnectingLink.class);

    /** Hears about one link's connections. Called on the link's event loop; must not block. */
    public interface Listener<P> {
        /** A connection was established and the hello, if any, written. */
        default void onConnected(ReconnectingLink<P> link, Channel channel) {
        }

        /** The link's connection closed; a reconnect is scheduled unless the link is closed. */
        default void onDisconnected(ReconnectingLink<P> link, Channel channel) {
        }
    }

    private final P peer;
    private final EventLoop loop;
    private final Supplier<InetSocketAddress> address;
    private final Bootstrap bootstrap;
    private final ChannelHandler initializer;
    private final LinkSecurity security;
    private final Backoff backoff;
    private final Supplier<ByteBuf> hello;
    private final boolean resetBackoffOnConnect;
    private final Listener<P> listener;

    // Event-loop thread only.
    private Channel channel;
    private boolean connecting;
    private ScheduledFuture<?> retry;
    private long attempts;

    private volatile boolean closed;

    private ReconnectingLink(Builder<P> b) {
        this.peer = b.peer;
        this.loop = b.loop;
        this.address = Objects.requireNonNull(b.address, "address");
        this.initializer = Objects.requireNonNull(b.initializer, "initializer");
        this.bootstrap = Objects.requireNonNull(b.bootstrap, "bootstrap").clone(loop).handler(initializer);
        this.security = b.security;
        this.backoff = Objects.requireNonNull(b.policy, "reconnect policy").newBackoff();
        this.hello = b.hello;
        this.resetBackoffOnConnect = b.resetBackoffOnConnect;
        this.listener = b.listener;
    }

    /** Starts building a link to {@code peer} on {@code loop}. */
    public static <P> Builder<P> to(P peer, EventLoop loop) {
        return new Builder<>(peer, loop);
    }

    /**
     * A client bootstrap template for links: {@link SocketIo#current()}'s sockets, {@code TCP_NODELAY}, and {@code connectTimeout} for each
     * attempt. Add options (a write-buffer water mark, say) before handing it to {@link Builder#bootstrap}.
     */
    public static Bootstrap clientBootstrap(Duration connectTimeout) {
        return new Bootstrap().channel(SocketIo.current().socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
    }

    /** The peer this link connects to. Any thread. */
    public P peer() {
        return peer;
    }

    /** The current connection (possibly not active any more, while its close is being handled), or null. Event loop only. */
    public Channel channel() {
        assert loop.inEventLoop();
        return channel;
    }

    /** Whether there is a connection and it is active. Event loop only. */
    public boolean isConnected() {
        assert loop.inEventLoop();
        return channel != null && channel.isActive();
    }

    /** Connection attempts made so far. Event loop only. */
    public long attempts() {
        assert loop.inEventLoop();
        return attempts;
    }

    /** Whether {@link #close()} was called. Any thread. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Connects now, unless the link is closed, connected, connecting, or waiting to retry (then that retry comes
     * first). Event loop only.
     */
    public void connectIfIdle() {
        assert loop.inEventLoop();
        if (closed || channel != null || connecting || retry != null) {
            return;
        }
        InetSocketAddress target = address.get();
        if (target == null) {
            LOG.debug("no address known yet for peer {}", peer);
            scheduleRetry();
            return;
        }
        connecting = true;
        attempts++;
        ChannelFuture f = (security.isTls() ? bootstrap.clone().handler(secured(target)) : bootstrap).connect(target);
        f.addListener((ChannelFuture done) -> {
            connecting = false;
            if (!done.isSuccess()) {
                LOG.debug("cannot connect to peer {} at {}: {}", peer, target, done.cause().toString());
                scheduleRetry();
                return;
            }
            Channel ch = done.channel();
            if (closed) {
                ch.close();
                return;
            }
            channel = ch;
            if (resetBackoffOnConnect) {
                backoff.reset();
            }
            if (hello != null) {
                ch.writeAndFlush(hello.get(), ch.voidPromise());
            }
            LOG.debug("connected to peer {} at {}", peer, target);
            ch.closeFuture().addListener(c -> onClosed(ch));
            listener.onConnected(this, ch);
        });
    }

    /** The TLS handler for {@code target} first, then the caller's. */
    private ChannelHandler secured(InetSocketAddress target) {
        return new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                security.secureDialed(ch, target);
                ch.pipeline().addLast(initializer);
            }
        };
    }

    /** Whether the link waits to retry a connection (after a failed attempt or a lost connection). Event loop only. */
    public boolean isWaitingToRetry() {
        assert loop.inEventLoop();
        return retry != null;
    }

    /**
     * Connects now if the link waits to retry: the peer was heard from again (it connected to us), so it listens, and
     * waiting out a backoff of up to {@link ReconnectPolicy#max()} would only leave it unreachable meanwhile. The
     * backoff is kept: a failed attempt waits longer, as before. Nothing if the link is closed, connected or
     * connecting. Event loop only.
     */
    public void reconnectNow() {
        assert loop.inEventLoop();
        if (closed || channel != null || connecting || retry == null) {
            return;
        }
        retry.cancel(false);
        retry = null;
        connectIfIdle();
    }

    /** Back to the shortest delay: the caller's handshake on the current connection succeeded. Event loop only. */
    public void resetBackoff() {
        assert loop.inEventLoop();
        backoff.reset();
    }

    private void onClosed(Channel ch) {
        if (channel != ch) {
            return;
        }
        channel = null;
        LOG.debug("connection to peer {} closed", peer);
        listener.onDisconnected(this, ch);
        scheduleRetry();
    }

    private void scheduleRetry() {
        if (closed || retry != null) {
            return;
        }
        long delay = backoff.nextDelayMillis();
        try {
            retry = loop.schedule(() -> {
                retry = null;
                connectIfIdle();
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the loop is shutting down: nothing to reconnect for
        }
    }

    /**
     * Stops reconnecting and closes the current connection (its {@link Listener#onDisconnected} still comes). A
     * connection attempt in flight is closed as soon as it completes. Any thread; does not wait. Idempotent.
     */
    public void close() {
        closed = true;
        if (loop.inEventLoop()) {
            closeNow();
            return;
        }
        try {
            loop.execute(this::closeNow);
        } catch (RejectedExecutionException e) {
            // the loop is shutting down and closes every channel itself
        }
    }

    private void closeNow() {
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "ReconnectingLink[" + peer + (closed ? ", closed" : "") + "]";
    }

    /**
     * Settings of a link. {@link #address}, {@link #bootstrap}, {@link #initializer} and {@link #reconnect} are
     * required. Not thread-safe; build on any thread.
     */
    public static final class Builder<P> {
        private final P peer;
        private final EventLoop loop;
        private Supplier<InetSocketAddress> address;
        private Bootstrap bootstrap;
        private ChannelHandler initializer;
        private ReconnectPolicy policy;
        private Supplier<ByteBuf> hello;
        private LinkSecurity security = LinkSecurity.plain();
        private boolean resetBackoffOnConnect = true;
        private Listener<P> listener = new Listener<>() { };

        private Builder(P peer, EventLoop loop) {
            this.peer = Objects.requireNonNull(peer, "peer");
            this.loop = Objects.requireNonNull(loop, "loop");
        }

        /** Where the peer listens, asked at every attempt; null means not known yet (retried after the backoff). */
        public Builder<P> address(Supplier<InetSocketAddress> where) {
            this.address = where;
            return this;
        }

        /** A fixed address. */
        public Builder<P> address(InetSocketAddress where) {
            Objects.requireNonNull(where, "address");
            this.address = () -> where;
            return this;
        }

        /** The client bootstrap template (see {@link #clientBootstrap}); the link clones it onto its loop. */
        public Builder<P> bootstrap(Bootstrap template) {
            this.bootstrap = template;
            return this;
        }

        /**
         * Sets up each new connection's pipeline (typically a {@link io.netty.channel.ChannelInitializer}, which
         * may make per-connection handlers); it must be {@link ChannelHandler.Sharable}.
         */
        public Builder<P> initializer(ChannelHandler channelInitializer) {
            this.initializer = channelInitializer;
            return this;
        }

        /**
         * How each connection is secured: under TLS the peer must present the certificate of the node listening at
         * the address dialled. Plain TCP unless set.
         */
        public Builder<P> security(LinkSecurity linkSecurity) {
            this.security = Objects.requireNonNull(linkSecurity, "security");
            return this;
        }

        /** The delays between attempts. */
        public Builder<P> reconnect(ReconnectPolicy reconnectPolicy) {
            this.policy = reconnectPolicy;
            return this;
        }

        /** Written and flushed first on every new connection; called once per connection. Optional. */
        public Builder<P> hello(Supplier<ByteBuf> helloFrame) {
            this.hello = helloFrame;
            return this;
        }

        /**
         * Whether an established connection resets the backoff (the default). Pass false when the peer may accept
         * and then refuse (a handshake it rejects, a full server): the caller then calls {@link ReconnectingLink#resetBackoff()}
         * once its handshake succeeded, so a refusing peer is not hammered at the shortest delay.
         */
        public Builder<P> resetBackoffOnConnect(boolean reset) {
            this.resetBackoffOnConnect = reset;
            return this;
        }

        /** Hears about connections and disconnections. Optional. */
        public Builder<P> listener(Listener<P> linkListener) {
            this.listener = Objects.requireNonNull(linkListener, "listener");
            return this;
        }

        /** The link, idle: call {@link ReconnectingLink#connectIfIdle()} on its loop to start it. */
        public ReconnectingLink<P> build() {
            return new ReconnectingLink<>(this);
        }
    }
}
