package io.psmr.ordering.ringpaxos.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.psmr.ordering.ringpaxos.Message;
import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.ringpaxos.Output;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.RingPaxosCore;
import io.psmr.ordering.ringpaxos.StorageChange;
import io.psmr.ordering.ringpaxos.wire.MalformedFrameException;
import io.psmr.ordering.ringpaxos.wire.MessageCodec;
import io.psmr.ordering.transport.EventLoopThread;
import io.psmr.ordering.transport.FrameServer;
import io.psmr.ordering.transport.LengthFraming;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.ReconnectingLink;
import io.psmr.ordering.transport.RefusalLog;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts one pure Ring Paxos core ({@link io.psmr.ordering.ringpaxos.AcceptorNode},
 * {@link io.psmr.ordering.ringpaxos.Learner} or {@link io.psmr.ordering.ringpaxos.Proposer}) on TCP.
 *
 * <h2>Threads</h2>
 * The node owns one Netty event loop with exactly <b>one thread</b>. Every socket of the node (the server, the
 * inbound connections, the outbound links) is registered on it, the tick task runs on it, and so every
 * {@code step}, {@code tick}, {@code ready} and {@code advance} call on the core happens on that thread, as
 * {@link RingPaxosCore} requires. Code outside reaches the core only through {@link #execute} and {@link #call},
 * which run a task on that thread and then send what the core produced. The {@link Listener} is called on
 * that thread too: it must not block, and it may call the core (its calls' outputs are sent before the loop
 * handles anything else). All public methods may be called from any thread.
 *
 * <h2>Connections</h2>
 * Each node listens on one port. To send to a peer it opens its own outbound connection (lazily, on the first
 * message to that peer) and starts it with a hello frame carrying its node id and the receiver's; it only
 * ever writes on outbound connections and only ever reads on inbound ones. Frames are a 4-byte big-endian
 * length and a body in the {@link MessageCodec} format.
 *
 * <h2>Bad input</h2>
 * An inbound connection is closed, with a WARN log line naming the peer and the problem (at most one per peer per
 * minute, see {@link RefusalLog}), and counted in {@link #refusedConnections()}, when its first
 * frame is not a hello from a node of the configuration, when a frame is longer than
 * {@link RingPaxosTransportConfig#maxFrameBytes()} (refused as soon as its length prefix is read) or malformed, or when a
 * message claims another sender than the hello or another receiver than this node. Other connections are
 * untouched and the node keeps serving.
 *
 * <h2>Peers that are down, and bounded memory</h2>
 * A message to a peer without a live connection is dropped (the protocol tolerates loss and retries), and the
 * link ({@link ReconnectingLink}) reconnects in the background after {@link RingPaxosTransportConfig#reconnectMin()},
 * doubling up to {@link RingPaxosTransportConfig#reconnectMax()}. A message to a peer whose connection holds more than
 * {@link RingPaxosTransportConfig#writeHighWaterBytes()} unsent bytes is dropped too. Inbound connections are limited to
 * {@link RingPaxosTransportConfig#maxInboundConnections()}.
 *
 * <h2>Durability</h2>
 * The node handles each {@link Ready} of the core in its order: it hands the Ready's
 * {@link Ready#writes() writes} to {@link Listener#persist}, where an acceptor's host makes them durable (see
 * {@link RingPaxosAcceptor}); only then does it send the Ready's messages, hand its outputs to
 * {@link Listener#onReady}, and {@link RingPaxosCore#advance advance} the core. If {@code persist} throws, the node
 * sends nothing more and closes itself (fail-stop): an acceptor that cannot record its promise must not make it.
 *
 * <h2>Restart</h2>
 * The server socket is bound with {@code SO_REUSEADDR}, so a node restarted on a fixed port (after its process
 * was killed, or after {@link #close()}) can bind it again at once, whatever connections of the old one linger
 * in TIME_WAIT.
 */
public final class RingPaxosNode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RingPaxosNode.class);

    /**
     * Receives what the core produced. Called on the node's event-loop thread only; must not block.
     */
    public interface Listener {
        /**
         * A ready with {@link Output}s: deliveries, acknowledgements or a trimmed-past signal (its messages are
         * already sent).
         */
        default void onReady(Ready<Message, StorageChange, Output> ready) {
        }

        /** After each tick of the core. */
        default void onTick() {
        }

        /**
         * Makes a ready's writes durable before its messages are sent: called for every ready with writes or
         * messages, before any of its messages leaves. {@code sending} says whether messages follow; a host may keep
         * the writes of a ready without messages buffered until the next ready that has messages, since nothing
         * that depends on them has left yet. Throwing stops the node (nothing of that ready is sent, and the node
         * closes).
         *
         * @param writes  the ready's writes, in order (empty for learners and proposers)
         * @param sending whether the ready has messages to send
         */
        default void persist(List<StorageChange> writes, boolean sending) {
        }
    }

    private final RingPaxosCore core;
    private final int id;
    private final RingPaxosConfig config;
    private final RingPaxosTransportConfig transport;
    private final Map<Integer, InetSocketAddress> peers;
    private final Listener listener;
    private final MessageCodec codec;
    private final EventLoopThread thread;
    private final EventLoop loop;
    private final Bootstrap clientBootstrap;
    private final ChannelInitializer<SocketChannel> outboundInitializer;
    private final RefusalLog refusals;
    private final FrameServer server;
    private final InetSocketAddress localAddress;
    private final Set<Integer> knownNodes;

    // Event-loop thread only.
    private final Map<Integer, Link> links = new HashMap<>();
    private final ArrayDeque<Message> toSelf = new ArrayDeque<>();
    private final List<Link> dirty = new ArrayList<>();
    private boolean inboundPaused;
    private boolean processing;

    private final AtomicLong droppedMessages = new AtomicLong();
    private volatile boolean closed;

    /** One outbound link to a peer, and whether it has unflushed writes. Event-loop thread only. */
    private static final class Link {
        final ReconnectingLink<Integer> connection;
        boolean dirty;

        Link(ReconnectingLink<Integer> connection) {
            this.connection = connection;
        }
    }

    /**
     * Binds the node's port and starts its event loop and its tick.
     *
     * @param core      the protocol core; from now on only this node's thread may touch it
     * @param config    the cluster (must be the core's)
     * @param transport transport settings
     * @param bind      where to listen (port 0 picks a free one; see {@link #localAddress()})
     * @param peers     where every node listens, by id; read at each connection attempt, so it may be a
     *                  concurrent map filled in after the peers started
     * @param listener  receives deliveries, acknowledgements and ticks
     */
    public static RingPaxosNode start(RingPaxosCore core, RingPaxosConfig config, RingPaxosTransportConfig transport,
                                      InetSocketAddress bind, Map<Integer, InetSocketAddress> peers, Listener listener) {
        return new RingPaxosNode(core, config, transport, bind, peers, listener);
    }

    private RingPaxosNode(RingPaxosCore core, RingPaxosConfig config, RingPaxosTransportConfig transport, InetSocketAddress bind,
                          Map<Integer, InetSocketAddress> peers, Listener listener) {
        this.core = Objects.requireNonNull(core, "core");
        this.id = core.id();
        this.config = Objects.requireNonNull(config, "config");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.codec = new MessageCodec(transport.maxFrameBytes(), transport.maxValueBytes(), transport.maxListLength());
        this.knownNodes = Set.copyOf(config.allNodes());
        if (!knownNodes.contains(id)) {
            throw new IllegalArgumentException("node " + id + " is not in the configuration");
        }
        this.thread = EventLoopThread.start("psmr-ringpaxos-" + id);
        this.loop = thread.loop();
        WriteBufferWaterMark mark = new WriteBufferWaterMark(transport.writeHighWaterBytes() / 2, transport.writeHighWaterBytes());
        this.clientBootstrap = ReconnectingLink.clientBootstrap(transport.connectTimeout())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, mark);
        this.outboundInitializer = new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(LengthFraming.prepender(), new OutboundOnlyHandler());
            }
        };
        this.refusals = RefusalLog.perMinute(LOG, () -> "node " + core.id());
        try {
            // Inbound connections only read, so they keep Netty's default write-buffer mark.
            this.server = FrameServer.bind(loop, bind,
                    new FrameServer.Limits(transport.maxFrameBytes(), transport.maxInboundConnections(), 0), refusals,
                    transport.security(), LinkSecurity.Admit.MEMBERS, this::acceptInbound);
        } catch (RuntimeException e) {
            thread.shutdown();
            throw e;
        }
        this.localAddress = server.localAddress();
        long tick = transport.tickInterval().toNanos();
        loop.scheduleAtFixedRate(this::onTick, tick, tick, TimeUnit.NANOSECONDS);
        LOG.debug("node {} listening on {}", id, localAddress);
    }

    /** This node's id. */
    public int id() {
        return id;
    }

    /** The address the node listens on. */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** Inbound connections closed for bad input (unknown node, malformed or oversized frame, forged sender). */
    public long refusedConnections() {
        return refusals.refusals();
    }

    /** Messages dropped because their peer had no live connection, too much unsent data, or the message was too large. */
    public long droppedMessages() {
        return droppedMessages.get();
    }

    /** Whether the caller is this node's event-loop thread. */
    public boolean inEventLoop() {
        return loop.inEventLoop();
    }

    /**
     * Runs {@code action} on the event-loop thread, then sends what the core produced.
     *
     * @throws RejectedExecutionException if the node is closed
     */
    public void execute(Runnable action) {
        execute(action, skipped -> { });
    }

    /**
     * Like {@link #execute(Runnable)}, but a task already queued when the node closes is not run silently:
     * {@code onSkipped} is called with the reason, on the event-loop thread.
     */
    private void execute(Runnable action, Consumer<RejectedExecutionException> onSkipped) {
        if (closed) {
            throw closedError();
        }
        loop.execute(() -> {
            if (closed) {
                onSkipped.accept(closedError());
            } else {
                action.run();
                processReady();
            }
        });
    }

    private RejectedExecutionException closedError() {
        return new RejectedExecutionException("node " + id + " is closed");
    }

    /**
     * Runs {@code f} on the core, on the event-loop thread, and completes with its result. Completes exceptionally
     * with {@link RejectedExecutionException} if the node is closed, or closes before {@code f} runs; with what
     * {@code f} throws otherwise. Any thread.
     */
    public <T> CompletableFuture<T> call(Function<RingPaxosCore, T> f) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            execute(() -> {
                try {
                    result.complete(f.apply(core));
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            }, result::completeExceptionally);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /**
     * Stops or resumes reading from every inbound connection (back-pressure). Event-loop thread only.
     */
    public void setInboundPaused(boolean paused) {
        assert loop.inEventLoop();
        if (paused == inboundPaused) {
            return;
        }
        inboundPaused = paused;
        for (Channel ch : server.connections()) {
            ch.config().setAutoRead(!paused);
        }
    }

    // ------------------------------------------------------------------------------------ core driving

    private void onTick() {
        if (closed) {
            return;
        }
        try {
            core.tick();
            listener.onTick();
        } catch (RuntimeException e) {
            LOG.error("node {}: tick failed", id, e);
        }
        processReady();
    }

    /** Drains the core's outputs until it has none, sends them, and flushes. Re-entrant calls return at once. */
    private void processReady() {
        if (processing) {
            return;
        }
        processing = true;
        try {
            while (true) {
                Message self = toSelf.poll();
                if (self != null) {
                    core.step(self);
                    continue;
                }
                Ready<Message, StorageChange, Output> ready = core.ready();
                if (ready.isEmpty()) {
                    break;
                }
                if ((!ready.writes().isEmpty() || !ready.messages().isEmpty()) && !persist(ready)) {
                    return;
                }
                for (Message m : ready.messages()) {
                    send(m);
                }
                if (!ready.outputs().isEmpty()) {
                    try {
                        listener.onReady(ready);
                    } catch (RuntimeException e) {
                        LOG.error("node {}: listener failed", id, e);
                    }
                }
                core.advance(ready);
            }
        } finally {
            processing = false;
            for (Link l : dirty) {
                l.dirty = false;
                Channel ch = l.connection.channel();
                if (ch != null) {
                    ch.flush();
                }
            }
            dirty.clear();
        }
    }

    /** Runs the listener's durability step; on failure closes the node and returns false. */
    private boolean persist(Ready<Message, StorageChange, Output> ready) {
        try {
            listener.persist(ready.writes(), !ready.messages().isEmpty());
            return true;
        } catch (RuntimeException e) {
            LOG.error("node {}: cannot make its state durable; stopping without sending", id, e);
            close();
            return false;
        }
    }

    private void send(Message m) {
        int to = m.to();
        if (to == id) {
            toSelf.add(m);
            return;
        }
        if (!knownNodes.contains(to)) {
            droppedMessages.incrementAndGet();
            return;
        }
        Link link = links.computeIfAbsent(to, this::newLink);
        Channel ch = link.connection.channel();
        if (ch == null || !ch.isActive()) {
            droppedMessages.incrementAndGet();
            link.connection.connectIfIdle();
            return;
        }
        if (!ch.isWritable()) {
            droppedMessages.incrementAndGet();
            return;
        }
        byte[] bytes;
        try {
            bytes = codec.encode(m);
        } catch (IllegalArgumentException e) {
            droppedMessages.incrementAndGet();
            LOG.warn("node {}: dropping a message to node {}: {}", id, to, e.getMessage());
            return;
        }
        ch.write(Unpooled.wrappedBuffer(bytes), ch.voidPromise());
        if (!link.dirty) {
            link.dirty = true;
            dirty.add(link);
        }
    }

    // ------------------------------------------------------------------------------------ outbound links

    /** A link to {@code peer}, idle until the first message to it; it starts with a hello naming both ends. */
    private Link newLink(int peer) {
        return new Link(ReconnectingLink.to(peer, loop)
                .address(() -> peers.get(peer))
                .bootstrap(clientBootstrap)
                .initializer(outboundInitializer)
                .reconnect(transport.reconnectPolicy())
                .security(transport.security())
                .hello(() -> Unpooled.wrappedBuffer(codec.encodeHello(id, peer)))
                .build());
    }

    /** Outbound connections carry nothing back; anything that arrives is discarded. */
    private static final class OutboundOnlyHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("outbound connection {} failed: {}", ctx.channel(), cause.toString());
            ctx.close();
        }
    }

    // ------------------------------------------------------------------------------------ inbound connections

    /** Adds the reading handler to an inbound connection, after the server's framing. */
    private void acceptInbound(SocketChannel ch) {
        if (closed) {
            ch.close();
            return;
        }
        ch.config().setAutoRead(!inboundPaused);
        ch.pipeline().addLast(new InboundHandler());
    }

    /** Reads the hello, then messages, from one inbound connection; closes it on bad input. */
    private final class InboundHandler extends ChannelInboundHandlerAdapter {
        private int peer = -1;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] frame = LengthFraming.take(msg);
            if (!ctx.channel().isActive()) {
                return; // already refused; frames still queued in the decoder are ignored
            }
            try {
                if (peer < 0) {
                    int sender = codec.decodeHello(frame, id);
                    if (!knownNodes.contains(sender) || sender == id) {
                        refuse(ctx, "unknown node id " + sender + " in hello");
                        return;
                    }
                    Optional<String> impostor = transport.security().claimProblem(ctx.channel(), peers.get(sender));
                    if (impostor.isPresent()) {
                        refuse(ctx, "hello from node " + sender + " refused: " + impostor.get());
                        return;
                    }
                    peer = sender;
                    LOG.debug("node {}: inbound connection from node {} ({})", id, peer, ctx.channel().remoteAddress());
                    return;
                }
                Message m = codec.decode(frame);
                if (m.from() != peer || m.to() != id) {
                    refuse(ctx, "message " + m.getClass().getSimpleName() + " from " + m.from() + " to " + m.to()
                            + " on the connection of node " + peer + " to node " + id);
                    return;
                }
                if (!closed) {
                    core.step(m);
                    processReady();
                }
            } catch (MalformedFrameException e) {
                refuse(ctx, "malformed frame: " + e.getMessage());
            } catch (RuntimeException e) {
                LOG.error("node {}: failed handling a frame from {}", id, describe(ctx), e);
                refuse(ctx, "internal error " + e);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            String why = LengthFraming.refusalReason(cause, transport.maxFrameBytes());
            if (why == null) {
                // The peer went away (reset, broken pipe): not bad input.
                LOG.debug("node {}: connection from {} failed: {}", id, describe(ctx), cause.toString());
                ctx.close();
            } else {
                refuse(ctx, why);
            }
        }

        private void refuse(ChannelHandlerContext ctx, String why) {
            Object key = peer < 0 ? RefusalLog.hostOf(ctx.channel()) : peer;
            refusals.refuse(ctx.channel(), key, describe(ctx), why);
        }

        private String describe(ChannelHandlerContext ctx) {
            return (peer < 0 ? "unidentified peer" : "node " + peer) + " at " + ctx.channel().remoteAddress();
        }
    }

    // ------------------------------------------------------------------------------------ close

    /**
     * Stops the tick, closes every connection and the server port, and stops the event-loop thread, waiting
     * for it unless called from it. The core is not touched afterwards. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        thread.shutdown(() -> {
            server.close();
            for (Link l : links.values()) {
                l.connection.close();
            }
        });
        LOG.debug("node {} closed", id);
    }

    @Override
    public String toString() {
        return "RingPaxosNode[" + id + " at " + localAddress + (closed ? ", closed" : "") + "]";
    }
}
