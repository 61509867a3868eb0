package io.psmr.ordering.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A listening port whose connections carry {@link LengthFraming} frames. Each accepted connection gets a decoder
 * refusing frames above {@link Limits#maxFrameBytes()} and a length prepender, then the caller's initializer adds
 * the handler that reads (hello, messages) after them. A connection beyond {@link Limits#maxConnections()} is
 * refused through the {@link RefusalLog} (closed, counted, rate-limited WARN) before anything is read.
 *
 * <p>The port is bound with {@code SO_REUSEADDR}, so a process restarted on a fixed port can bind it again at once,
 * whatever connections of the old one linger in TIME_WAIT. Connections get {@code TCP_NODELAY}.
 *
 * <h2>Threads</h2>
 * The server and all its connections live on one {@link EventLoop}, given by the caller; the initializer runs
 * there. {@link #bind} may be called from any thread but that loop's (it waits for the bind).
 * {@link #localAddress()} may be read from any thread; {@link #connections()}, {@link #connectionCount()} and
 * {@link #close()} are event loop only.
 */
public final class FrameServer {

    /**
     * Bounds of a frame server.
     *
     * @param maxFrameBytes       largest frame body accepted; a longer length prefix fails that connection's
     *                            pipeline with a {@link io.netty.handler.codec.TooLongFrameException}
     * @param maxConnections      most connections held at once; a further one is refused
     * @param writeHighWaterBytes bytes queued on a connection beyond which it reports not writable (until half of
     *                            this drains); 0 keeps Netty's default
     */
    public record Limits(int maxFrameBytes, int maxConnections, int writeHighWaterBytes) {
        /** Validates. */
        public Limits {
            if (maxFrameBytes < 1 || maxConnections < 1 || writeHighWaterBytes < 0) {
                throw new IllegalArgumentException("frame server limits: maxFrameBytes and maxConnections at least 1,"
                        + " writeHighWaterBytes at least 0, got " + maxFrameBytes + ", " + maxConnections + ", " + writeHighWaterBytes);
            }
        }
    }

    /** The {@link RefusalLog} reason of a connection refused because the server holds {@link Limits#maxConnections()}. */
    public static final String CONNECTION_LIMIT = "connection limit";

    private final Limits limits;
    private final RefusalLog refusals;
    private final LinkSecurity security;
    private final LinkSecurity.Admit admit;
    private final Consumer<SocketChannel> initializer;
    private final Channel server;
    private final InetSocketAddress localAddress;
    /** Every open connection. Event-loop thread only. */
    private final Set<Channel> connections = new HashSet<>();

    private FrameServer(EventLoop loop, InetSocketAddress bind, Limits limits, RefusalLog refusals, LinkSecurity security,
                        LinkSecurity.Admit admit, Consumer<SocketChannel> initializer) {
        this.limits = limits;
        this.refusals = refusals;
        this.security = security;
        this.admit = admit;
        this.initializer = initializer;
        ServerBootstrap b = new ServerBootstrap().group(loop, loop).channel(SocketIo.current().serverSocketChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        if (limits.writeHighWaterBytes() > 0) {
            b.childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                    new WriteBufferWaterMark(limits.writeHighWaterBytes() / 2, limits.writeHighWaterBytes()));
        }
        ChannelFuture bound = b.bind(bind).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            // Netty would rethrow the checked BindException undeclared; name the address instead.
            Throwable cause = bound.cause();
            String message = "cannot listen on " + bind + ": " + cause;
            throw cause instanceof IOException io ? new UncheckedIOException(message, io) : new IllegalStateException(message, cause);
        }
        this.server = bound.channel();
        this.localAddress = (InetSocketAddress) server.localAddress();
    }

    /**
     * Binds {@code address} (port 0 picks a free port, see {@link #localAddress()}) and starts accepting.
     *
     * @param loop        the event loop of the server and its connections
     * @param refusals    counts and logs connections refused over the bound (the caller's handlers use it too)
     * @param initializer adds the caller's handlers to each accepted connection, after the framing; on the loop
     * @throws UncheckedIOException naming the address, if it cannot be bound (for example the port is taken)
     */
    public static FrameServer bind(EventLoop loop, InetSocketAddress address, Limits limits, RefusalLog refusals,
                                   Consumer<SocketChannel> initializer) {
        return bind(loop, address, limits, refusals, LinkSecurity.plain(), LinkSecurity.Admit.MEMBERS, initializer);
    }

    /**
     * Like {@link #bind(EventLoop, InetSocketAddress, Limits, RefusalLog, Consumer)}, each connection secured by
     * {@code security} (under TLS, only peers in {@code admit}'s roles get past the handshake; the framing and the
     * caller's handlers come after it).
     */
    public static FrameServer bind(EventLoop loop, InetSocketAddress address, Limits limits, RefusalLog refusals,
                                   LinkSecurity security, LinkSecurity.Admit admit, Consumer<SocketChannel> initializer) {
        if (Objects.requireNonNull(loop, "loop").inEventLoop()) {
            throw new IllegalStateException("bind would block the event loop it binds on");
        }
        return new FrameServer(loop, Objects.requireNonNull(address, "address"),
                Objects.requireNonNull(limits, "limits"), Objects.requireNonNull(refusals, "refusals"),
                Objects.requireNonNull(security, "security"), Objects.requireNonNull(admit, "admit"),
                Objects.requireNonNull(initializer, "initializer"));
    }

    private void accept(SocketChannel ch) {
        if (connections.size() >= limits.maxConnections()) {
            refusals.refuse(ch, RefusalLog.hostOf(ch), "unidentified peer at " + ch.remoteAddress(), CONNECTION_LIMIT,
                    "already " + connections.size() + " connections (the maximum)");
            return;
        }
        connections.add(ch);
        ch.closeFuture().addListener(f -> connections.remove(ch));
        security.secureAccepted(ch, admit);
        ch.pipeline().addLast(LengthFraming.decoder(limits.maxFrameBytes()), LengthFraming.prepender());
        initializer.accept(ch);
    }

    /** The address it listens on. Any thread. */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** The open connections (a read-only view). Event loop only. */
    public Set<Channel> connections() {
        return Collections.unmodifiableSet(connections);
    }

    /** How many connections are open. Event loop only. */
    public int connectionCount() {
        return connections.size();
    }

    /** Closes the port and every connection. Event loop only. Idempotent. */
    public void close() {
        server.close();
        for (Channel ch : new ArrayList<>(connections)) {
            ch.close();
        }
    }

    @Override
    public String toString() {
        return "FrameServer[" + localAddress + "]";
    }
}
