package io.psmr.ordering.pbft.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.psmr.ordering.agent.BoundedQueue;
import io.psmr.ordering.transport.EventLoopThread;
import io.psmr.ordering.transport.FrameServer;
import io.psmr.ordering.transport.LengthFraming;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.ReconnectingLink;
import io.psmr.ordering.transport.RefusalLog;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything network of one pillar of one replica, on the pillar's own event loop: its port ({@link FrameServer}),
 * where the same pillar of every peer replica connects and says {@link PillarHello hello}; its outgoing
 * {@link PeerLink}s, one per peer replica; and its two inboxes for the pillar's agent. Nothing here is shared with
 * another pillar but the {@link RefusalLog} and the drop counter (both thread-safe), so pillars never wait on each
 * other at the transport and no order is imposed across pillars.
 *
 * <p>An inbound frame is checked only as far as routing needs: the 12-byte header ({@code from, to, pillar}) must
 * match the hello and this replica. Decoding the rest and verifying the MAC stay with the pillar's agent and core,
 * on the pillar's thread, which count what they drop.
 *
 * <p>Threads: built and closed from outside the loop; everything else on the loop, except {@link #link},
 * {@link #inbound()}, {@link #outbound()} and the inboxes, which are thread-safe.
 */
final class PillarConnections {

    private static final Logger LOG = LoggerFactory.getLogger(PillarConnections.class);
    /** Bytes of an envelope frame's routing header: from, to, pillar. */
    static final int HEADER_BYTES = 12;

    private final int replica;
    private final int replicas;
    private final int pillars;
    private final int pillar;
    private final PbftTransportConfig config;
    private final RefusalLog refusals;
    private final Consumer<DropReason> drops;
    private final EventLoopThread thread;
    private final FrameServer server;
    private final PeerLink[] links;
    private final BoundedQueue<byte[]> frames;
    private final BoundedQueue<byte[]> requests;
    /** Peer replicas with an identified inbound connection. Event loop only. */
    private final Set<Integer> inboundPeers = new HashSet<>();
    private final PeerAddresses peers;
    private volatile int inbound;
    private volatile int outbound;

    /**
     * Starts the loop, binds {@code bind} and starts connecting to every peer.
     *
     * @throws java.io.UncheckedIOException naming the address if it cannot be bound
     */
    PillarConnections(int replica, int replicas, int pillars, int pillar, InetSocketAddress bind, PeerAddresses peers,
                      PbftTransportConfig config, RefusalLog refusals, Consumer<DropReason> drops) {
        this.replica = replica;
        this.replicas = replicas;
        this.pillars = pillars;
        this.pillar = pillar;
        this.config = config;
        this.peers = peers;
        this.refusals = refusals;
        this.drops = drops;
        String name = "replica-" + replica + "/pillar-" + pillar;
        this.frames = new BoundedQueue<>(name + " frames", config.inboxFrames());
        this.requests = new BoundedQueue<>(name + " requests", config.requestInboxCapacity());
        this.thread = EventLoopThread.start("psmr-pbft-" + replica + "-" + pillar);
        EventLoop loop = thread.loop();
        try {
            // Inbound connections only read, so they keep Netty's default write-buffer mark.
            this.server = FrameServer.bind(loop, bind, new FrameServer.Limits(config.maxFrameBytes(),
                    config.maxInboundConnections(), 0), refusals, config.security(), LinkSecurity.Admit.NODES,
                    ch -> ch.pipeline().addLast(new InboundHandler()));
        } catch (RuntimeException e) {
            thread.shutdown();
            throw e;
        }
        Bootstrap client = ReconnectingLink.clientBootstrap(config.connectTimeout())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.writeHighWaterBytes() / 2, config.writeHighWaterBytes()));
        this.links = new PeerLink[replicas];
        for (int peer = 0; peer < replicas; peer++) {
            if (peer != replica) {
                links[peer] = new PeerLink(replica, peer, pillar, loop, peers, client, config, drops, this::countOutbound);
            }
        }
        loop.execute(() -> {
            for (PeerLink l : links) {
                if (l != null) {
                    l.start();
                }
            }
        });
    }

    /** The outgoing link to {@code peer} (not this replica). Any thread. */
    PeerLink link(int peer) {
        return links[peer];
    }

    /** The pillar's event loop: its port, its connections, and the pillar's agent when the replica runs it there. */
    EventLoop loop() {
        return thread.loop();
    }

    /** The pillar's inbox of frames. */
    BoundedQueue<byte[]> frames() {
        return frames;
    }

    /** The pillar's inbox of encoded client requests. */
    BoundedQueue<byte[]> requests() {
        return requests;
    }

    /** The address the pillar's port listens on. Any thread. */
    InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /** Peer replicas connected to this pillar's port (after their hello). Any thread, a snapshot. */
    int inbound() {
        return inbound;
    }

    /** Peer replicas this pillar's outgoing connections reach. Any thread, a snapshot. */
    int outbound() {
        return outbound;
    }

    private void countOutbound() {
        int n = 0;
        for (PeerLink l : links) {
            if (l != null && l.isConnected()) {
                n++;
            }
        }
        outbound = n;
    }

    /** Closes the port, every connection and the loop; waits for the loop to end. Not on the loop. */
    void close() {
        thread.shutdown(() -> {
            server.close();
            for (PeerLink l : links) {
                if (l != null) {
                    l.close();
                }
            }
        });
        inbound = 0;
        outbound = 0;
    }

    /** Reads the hello, then envelope frames, of one inbound connection; refuses it on bad input. */
    private final class InboundHandler extends ChannelInboundHandlerAdapter {
        /** The peer replica once its hello was accepted; -1 before. */
        private int peer = -1;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] frame = LengthFraming.take(msg);
            Channel ch = ctx.channel();
            if (!ch.isActive()) {
                return; // already refused; frames still queued in the decoder are ignored
            }
            if (peer < 0) {
                hello(ch, frame);
                return;
            }
            if (frame.length < HEADER_BYTES) {
                refuse(ch, RefusalReason.MALFORMED_FRAME, "a frame of " + frame.length + " bytes, shorter than the "
                        + HEADER_BYTES + "-byte envelope header");
                return;
            }
            ByteBuffer header = ByteBuffer.wrap(frame, 0, HEADER_BYTES);
            int from = header.getInt();
            int to = header.getInt();
            int p = header.getInt();
            if (from != peer || to != replica || p != pillar) {
                refuse(ch, RefusalReason.FORGED_ENVELOPE, "an envelope from replica " + from + " to replica " + to
                        + " for pillar " + p + " on the connection of replica " + peer + " to replica " + replica
                        + " for pillar " + pillar);
                return;
            }
            if (!frames.offer(frame)) {
                drops.accept(DropReason.INBOX_FULL);
            }
        }

        private void hello(Channel ch, byte[] frame) {
            PillarHello hello;
            try {
                hello = PillarHello.decode(frame);
            } catch (IllegalArgumentException e) {
                refuse(ch, RefusalReason.MALFORMED_HELLO, "malformed hello: " + e.getMessage());
                return;
            }
            if (hello.to() != replica) {
                refuse(ch, RefusalReason.MALFORMED_HELLO, "a hello for replica " + hello.to() + ", this is replica "
                        + replica);
            } else if (hello.from() < 0 || hello.from() >= replicas || hello.from() == replica) {
                refuse(ch, RefusalReason.UNKNOWN_REPLICA, "unknown replica id " + hello.from() + " in hello (peers are 0.."
                        + (replicas - 1) + " but " + replica + ")");
            } else if (hello.pillar() != pillar) {
                refuse(ch, RefusalReason.PILLAR_OUT_OF_RANGE, "pillar " + hello.pillar() + " in hello, on the port of"
                        + " pillar " + pillar + " (pillars are 0.." + (pillars - 1) + ")");
            } else if (config.security().claimProblem(ch, peers.of(hello.from(), pillar)).isPresent()) {
                refuse(ch, RefusalReason.IMPOSTOR, "hello from replica " + hello.from() + " refused: "
                        + config.security().claimProblem(ch, peers.of(hello.from(), pillar)).get());
            } else if (!inboundPeers.add(hello.from())) {
                refuse(ch, RefusalReason.DUPLICATE_CONNECTION, "replica " + hello.from() + " already has a connection"
                        + " to pillar " + pillar);
            } else {
                int from = hello.from();
                peer = from;
                inbound = inboundPeers.size();
                ch.closeFuture().addListener(f -> {
                    inboundPeers.remove(from);
                    inbound = inboundPeers.size();
                });
                LOG.debug("replica {} pillar {}: replica {} connected from {}", replica, pillar, from, ch.remoteAddress());
                PeerLink[] outgoing = links; // null while the constructor still runs
                if (outgoing != null && outgoing[from] != null) {
                    outgoing[from].peerIsBack();
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            String why = LengthFraming.refusalReason(cause, config.maxFrameBytes());
            if (why == null) {
                // The peer went away (reset, broken pipe): not bad input.
                LOG.debug("replica {} pillar {}: connection {} failed: {}", replica, pillar, ctx.channel(), cause.toString());
                ctx.close();
                return;
            }
            boolean oversized = cause instanceof TooLongFrameException || cause.getCause() instanceof TooLongFrameException;
            refuse(ctx.channel(), oversized ? RefusalReason.OVERSIZED_FRAME : RefusalReason.MALFORMED_FRAME, why);
        }

        private void refuse(Channel ch, RefusalReason reason, String why) {
            Object key = peer < 0 ? RefusalLog.hostOf(ch) : (Object) peer;
            String who = (peer < 0 ? "unidentified peer" : "replica " + peer) + " at " + ch.remoteAddress()
                    + " (pillar " + pillar + ")";
            refusals.refuse(ch, key, who, reason, why);
        }
    }
}
