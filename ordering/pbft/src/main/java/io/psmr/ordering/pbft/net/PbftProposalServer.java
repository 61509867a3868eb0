package io.psmr.ordering.pbft.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.pbft.net.ProposalFrames.Refused;
import io.psmr.ordering.transport.EventLoopThread;
import io.psmr.ordering.transport.FrameServer;
import io.psmr.ordering.transport.LengthFraming;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.RefusalLog;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PBFT replica's proposal port: where client proxies in other processes hand it their batches
 * ({@link PbftProposerClient}). Each batch is proposed through the replica's own broadcast (which signs it as one of
 * the replica's PBFT clients and hands it to a pillar, which forwards it to the others), and answered ORDERED with
 * its instance once this replica delivered it, or REFUSED at once ({@link ProposalFrames}).
 *
 * <h2>Bad input and bounds</h2>
 * Built on the shared helper: {@link FrameServer} (length framing, a frame limit of the largest value plus the
 * header, at most {@link Config#maxConnections()} connections), {@link RefusalLog} (a connection whose first frame is
 * not the hello, with a frame of an unknown type, or an oversized frame is closed, counted by reason and logged at
 * most once per peer per minute; the server keeps serving). Each connection has at most
 * {@link Config#maxInFlightPerConnection()} proposals in flight; beyond that, and whenever the broadcast is
 * overloaded, a proposal is answered REFUSED OVERLOADED at once (not ordered).
 *
 * <h2>Threads</h2>
 * One event loop of its own; answers are written from the broadcast's completion threads (Netty hands them to the
 * loop). {@link #start}, {@link #localAddress}, {@link #refusals}, {@link #close} from any thread.
 */
public final class PbftProposalServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PbftProposalServer.class);

    /** Refusal reasons, counted apart ({@link #refusals()}). */
    public static final String MALFORMED_HELLO = "malformed hello";
    /** A frame that is too short, of an unknown type, or broken framing. */
    public static final String MALFORMED_FRAME = "malformed frame";
    /** A frame longer than the largest value plus the header. */
    public static final String OVERSIZED_FRAME = "oversized frame";

    /**
     * Bounds of a proposal server.
     *
     * @param maxValueBytes             largest value accepted (the PBFT request limit)
     * @param maxConnections            proxies connected at once
     * @param maxInFlightPerConnection  proposals of one connection not yet answered
     * @param security                  plain TCP, or mutual TLS admitting the cluster's nodes and client machines
     */
    public record Config(int maxValueBytes, int maxConnections, int maxInFlightPerConnection, LinkSecurity security) {
        /** Validates. */
        public Config {
            Objects.requireNonNull(security, "security");
            if (maxValueBytes < 1 || maxConnections < 1 || maxInFlightPerConnection < 1) {
                throw new IllegalArgumentException("proposal server limits must be at least 1, got maxValueBytes "
                        + maxValueBytes + ", maxConnections " + maxConnections + ", maxInFlightPerConnection "
                        + maxInFlightPerConnection);
            }
        }

        /** Bounds over plain TCP. */
        public Config(int maxValueBytes, int maxConnections, int maxInFlightPerConnection) {
            this(maxValueBytes, maxConnections, maxInFlightPerConnection, LinkSecurity.plain());
        }

        /** {@code maxValueBytes}, 64 connections, 1,024 in flight per connection, plain TCP. */
        public static Config defaults(int maxValueBytes) {
            return new Config(maxValueBytes, 64, 1024);
        }

        /** The same over {@code newSecurity}. */
        public Config withSecurity(LinkSecurity newSecurity) {
            return new Config(maxValueBytes, maxConnections, maxInFlightPerConnection, newSecurity);
        }
    }

    private final int replica;
    private final OrderingClient broadcast;
    private final Config config;
    private final int maxFrameBytes;
    private final RefusalLog refusals;
    private final EventLoopThread thread;
    private final FrameServer server;
    private final LongAdder proposed = new LongAdder();
    private final LongAdder overloaded = new LongAdder();
    private volatile boolean closed;

    private PbftProposalServer(int replica, OrderingClient broadcast, InetSocketAddress bind, Config config) {
        this.replica = replica;
        this.broadcast = broadcast;
        this.config = config;
        this.maxFrameBytes = ProposalFrames.HEADER_BYTES + config.maxValueBytes();
        this.refusals = RefusalLog.perMinute(LOG, () -> "PBFT replica " + replica + " proposal port");
        this.thread = EventLoopThread.start("psmr-pbft-" + replica + "-proposals");
        try {
            this.server = FrameServer.bind(thread.loop(), bind, new FrameServer.Limits(maxFrameBytes,
                    config.maxConnections(), 0), refusals, config.security(), LinkSecurity.Admit.MEMBERS,
                    ch -> ch.pipeline().addLast(new Handler()));
        } catch (RuntimeException e) {
            thread.shutdown();
            throw e;
        }
    }

    /**
     * Binds {@code bind} (port 0 picks a free one) and serves proposals through {@code broadcast}.
     *
     * @param replica   the replica (for names in logs)
     * @param broadcast the replica's broadcast (a {@code PbftBroadcast}); started by the caller
     * @throws java.io.UncheckedIOException naming the address if it cannot be bound
     */
    public static PbftProposalServer start(int replica, OrderingClient broadcast, InetSocketAddress bind, Config config) {
        return new PbftProposalServer(replica, Objects.requireNonNull(broadcast, "broadcast"),
                Objects.requireNonNull(bind, "bind"), Objects.requireNonNull(config, "config"));
    }

    /** Where it listens. Any thread. */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /** Connections refused so far, by reason ({@link #MALFORMED_HELLO}, ..., {@link FrameServer#CONNECTION_LIMIT}). */
    public Map<Object, Long> refusals() {
        return refusals.refusalsByReason();
    }

    /** Proposals handed to the broadcast so far. */
    public long proposed() {
        return proposed.sum();
    }

    /** Proposals answered OVERLOADED so far. */
    public long overloaded() {
        return overloaded.sum();
    }

    /** Closes the port and every connection; proposals in flight stay with the broadcast. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        thread.shutdown(server::close);
    }

    /** One proxy's connection: the hello, then proposals. */
    private final class Handler extends ChannelInboundHandlerAdapter {
        private boolean greeted;
        private final AtomicInteger inFlight = new AtomicInteger();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] frame = LengthFraming.take(msg);
            Channel ch = ctx.channel();
            if (!ch.isActive()) {
                return;
            }
            if (!greeted) {
                try {
                    ProposalFrames.checkHello(frame);
                    greeted = true;
                } catch (IllegalArgumentException e) {
                    refuse(ch, MALFORMED_HELLO, e.getMessage());
                }
                return;
            }
            byte type;
            try {
                type = ProposalFrames.type(frame);
            } catch (IllegalArgumentException e) {
                refuse(ch, MALFORMED_FRAME, e.getMessage());
                return;
            }
            if (type != ProposalFrames.PROPOSE) {
                refuse(ch, MALFORMED_FRAME, "a frame of type " + type + ", not PROPOSE (" + ProposalFrames.PROPOSE + ")");
                return;
            }
            long correlation = ProposalFrames.correlation(frame);
            if (inFlight.get() >= config.maxInFlightPerConnection()) {
                overloaded.increment();
                answer(ch, ProposalFrames.refused(correlation, Refused.OVERLOADED, "replica " + replica + ": "
                        + config.maxInFlightPerConnection() + " proposals of this connection in flight; not ordered"));
                return;
            }
            inFlight.incrementAndGet();
            proposed.increment();
            CompletableFuture<Long> f;
            try {
                f = broadcast.propose(ProposalFrames.value(frame));
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((instance, error) -> {
                inFlight.decrementAndGet();
                answer(ch, error == null ? ProposalFrames.ordered(correlation, instance) : refusal(correlation, error));
            });
        }

        private byte[] refusal(long correlation, Throwable error) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            String why = "replica " + replica + ": " + cause.getMessage();
            if (cause instanceof OverloadedException) {
                overloaded.increment();
                return ProposalFrames.refused(correlation, Refused.OVERLOADED, why);
            }
            if (cause instanceof BroadcastClosedException) {
                return ProposalFrames.refused(correlation, Refused.OUTCOME_UNKNOWN, why);
            }
            return ProposalFrames.refused(correlation, Refused.NOT_ORDERED, why);
        }

        private void answer(Channel ch, byte[] frame) {
            if (ch.isActive()) {
                ch.writeAndFlush(Unpooled.wrappedBuffer(frame), ch.voidPromise());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            String why = LengthFraming.refusalReason(cause, maxFrameBytes);
            if (why == null) {
                ctx.close(); // the proxy went away: not bad input
                return;
            }
            boolean oversized = cause instanceof io.netty.handler.codec.TooLongFrameException
                    || cause.getCause() instanceof io.netty.handler.codec.TooLongFrameException;
            refuse(ctx.channel(), oversized ? OVERSIZED_FRAME : MALFORMED_FRAME, why);
        }

        private void refuse(Channel ch, String reason, String why) {
            refusals.refuse(ch, RefusalLog.hostOf(ch), "proxy at " + ch.remoteAddress(), reason, why);
        }
    }

    @Override
    public String toString() {
        return "PbftProposalServer[replica " + replica + " at " + localAddress() + "]";
    }
}
