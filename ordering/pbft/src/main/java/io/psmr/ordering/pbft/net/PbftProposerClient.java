package io.psmr.ordering.pbft.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OutcomeUnknownException;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.pbft.net.ProposalFrames.Refused;
import io.psmr.ordering.transport.EventLoopThread;
import io.psmr.ordering.transport.LengthFraming;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.ReconnectPolicy;
import io.psmr.ordering.transport.ReconnectingLink;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link OrderingClient} for a proxy in another process than the PBFT replicas: it sends each value to one
 * replica's proposal port ({@link PbftProposalServer}, wire in {@link ProposalFrames}), which proposes it through its
 * broadcast, and completes the future with the instance that replica answers. It talks to one replica at a time, and
 * <b>moves to the next</b> (in the order given, wrapping) when that replica cannot be reached, closes the connection,
 * answers a refusal other than overload, or leaves a proposal unanswered for {@link Config#ackTimeout()}: a crashed,
 * lagging or Byzantine entry replica (which may drop proposals) cannot stall the proxy for longer than that.
 *
 * <h2>Outcomes</h2>
 * <ul>
 *   <li>ORDERED → the future completes with the instance the entry replica gives. A Byzantine replica may lie here;
 *       the proxy must trust only {@code f + 1} matching replies ({@code ReplyTrust.matching}), which it does
 *       anyway.</li>
 *   <li>Not sent when {@code ackTimeout} passes (no replica reachable), or refused before ordering →
 *       {@link OverloadedException}: not ordered, propose again.</li>
 *   <li>Sent, then the connection was lost or the answer did not come in time, or the replica closed meanwhile →
 *       {@link OutcomeUnknownException}: it may be ordered; only a layer that deduplicates (the store's exactly-once
 *       rule, through the proxy's retry with the same batch) may propose it again.</li>
 * </ul>
 *
 * <h2>Bounds</h2>
 * At most {@link Config#maxPending()} proposals waiting or unanswered; beyond that {@code propose} fails at once with
 * {@link OverloadedException}. Values over {@link Config#maxValueBytes()} are refused with
 * {@link IllegalArgumentException}.
 *
 * <h2>Threads</h2>
 * All methods from any thread. The connection, its timers and the futures live on one event loop of the client's
 * own: futures complete there, so dependent stages must not block.
 */
public final class PbftProposerClient implements OrderingClient {

    private static final Logger LOG = LoggerFactory.getLogger(PbftProposerClient.class);

    /**
     * How a proposer client behaves.
     *
     * @param maxValueBytes  largest value (the PBFT request limit)
     * @param maxPending     proposals waiting or unanswered at once
     * @param ackTimeout     how long a proposal may stay unanswered before the client gives up on the entry replica
     * @param connectTimeout one connection attempt's limit
     * @param reconnect      delays between connection attempts (each attempt goes to the next replica)
     * @param security       plain TCP, or mutual TLS as a client machine of the cluster
     */
    public record Config(int maxValueBytes, int maxPending, Duration ackTimeout, Duration connectTimeout,
                         ReconnectPolicy reconnect, LinkSecurity security) {
        /** Validates. */
        public Config {
            Objects.requireNonNull(security, "security");
            Objects.requireNonNull(ackTimeout, "ackTimeout");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(reconnect, "reconnect");
            if (maxValueBytes < 1 || maxPending < 1 || ackTimeout.toMillis() < 1 || connectTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("proposer client: maxValueBytes and maxPending at least 1, timeouts at"
                        + " least 1 ms; got " + maxValueBytes + ", " + maxPending + ", " + ackTimeout + ", " + connectTimeout);
            }
        }

        /**
         * {@code maxValueBytes}, 1,024 pending, a 2 s answer timeout, 1 s connect timeout, reconnect 20 ms to 1 s, plain
         * TCP.
         */
        public static Config defaults(int maxValueBytes) {
            return new Config(maxValueBytes, 1024, Duration.ofSeconds(2), Duration.ofSeconds(1),
                    new ReconnectPolicy(Duration.ofMillis(20), Duration.ofSeconds(1)), LinkSecurity.plain());
        }

        /** The same with {@code timeout} as the answer timeout. */
        public Config withAckTimeout(Duration timeout) {
            return new Config(maxValueBytes, maxPending, timeout, connectTimeout, reconnect, security);
        }

        /** The same over {@code newSecurity}. */
        public Config withSecurity(LinkSecurity newSecurity) {
            return new Config(maxValueBytes, maxPending, ackTimeout, connectTimeout, reconnect, newSecurity);
        }
    }

    /** One proposal. Event loop only, but for the future. */
    private static final class Pending {
        final long correlation;
        final byte[] value;
        final CompletableFuture<Long> future = new CompletableFuture<>();
        Channel sentOn;
        ScheduledFuture<?> timer;

        Pending(long correlation, byte[] value) {
            this.correlation = correlation;
            this.value = value;
        }
    }

    private final List<InetSocketAddress> replicas;
    private final Config config;
    private final EventLoopThread thread;
    private final EventLoop loop;
    private final ReconnectingLink<String> link;
    private final Semaphore permits;
    private final LongAdder rotations = new LongAdder();
    private final AtomicInteger target = new AtomicInteger();
    // Event loop only.
    private final Map<Long, Pending> pending = new LinkedHashMap<>();
    private long nextCorrelation;
    private boolean rotateOnNextAttempt;
    private volatile boolean closed;

    private PbftProposerClient(List<InetSocketAddress> replicas, int first, Config config) {
        this.replicas = List.copyOf(replicas);
        this.config = config;
        this.permits = new Semaphore(config.maxPending());
        this.target.set(first);
        this.thread = EventLoopThread.start("psmr-pbft-proposer");
        this.loop = thread.loop();
        byte[] hello = ProposalFrames.hello();
        this.link = ReconnectingLink.to("PBFT proposal ports " + this.replicas, loop)
                .address(this::nextAddress)
                .bootstrap(ReconnectingLink.clientBootstrap(config.connectTimeout()))
                .initializer(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(LengthFraming.decoder(ProposalFrames.HEADER_BYTES + 1
                                + ProposalFrames.MAX_REASON_BYTES), LengthFraming.prepender(), new Answers());
                    }
                })
                .reconnect(config.reconnect())
                .security(config.security())
                .hello(() -> Unpooled.wrappedBuffer(hello))
                .listener(new ReconnectingLink.Listener<>() {
                    @Override
                    public void onConnected(ReconnectingLink<String> l, Channel ch) {
                        rotateOnNextAttempt = false;
                        LOG.debug("proposer connected to replica {} at {}", target.get(), ch.remoteAddress());
                        for (Pending p : pending.values()) {
                            send(p, ch);
                        }
                    }

                    @Override
                    public void onDisconnected(ReconnectingLink<String> l, Channel ch) {
                        rotateOnNextAttempt = true;
                        lost(ch, "the connection to replica " + target.get() + " was lost");
                    }
                })
                .build();
        loop.execute(link::connectIfIdle);
    }

    /**
     * Starts connecting to {@code replicas.get(first)}.
     *
     * @param replicas every replica's proposal port, in the order the client moves through them
     * @param first    the index of the replica to try first (spread proxies over the replicas)
     */
    public static PbftProposerClient start(List<InetSocketAddress> replicas, int first, Config config) {
        Objects.requireNonNull(config, "config");
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException("no replica proposal ports given");
        }
        if (first < 0 || first >= replicas.size()) {
            throw new IllegalArgumentException("first replica index " + first + " is not one of 0.." + (replicas.size() - 1));
        }
        return new PbftProposerClient(replicas, first, config);
    }

    /** The index (in the list given) of the replica proposals go to now. Any thread. */
    public int entryReplica() {
        return target.get();
    }

    /** How many times the client moved to another replica. Any thread. */
    public long rotations() {
        return rotations.sum();
    }

    /** Each connection attempt after a failed one, or after a lost connection, goes to the next replica. Loop only. */
    private InetSocketAddress nextAddress() {
        if (rotateOnNextAttempt) {
            int next = (target.get() + 1) % replicas.size();
            target.set(next);
            rotations.increment();
        }
        rotateOnNextAttempt = true; // cleared once this attempt connects
        return replicas.get(target.get());
    }

    /** Does nothing: the client connects from {@link #start} on. @throws IllegalStateException if closed */
    @Override
    public void start() {
        if (closed) {
            throw new IllegalStateException("proposer client is closed and cannot be started again");
        }
    }

    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("cannot propose a null value");
        }
        if (value.length > config.maxValueBytes()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the maximum request size of "
                    + config.maxValueBytes() + " bytes");
        }
        if (closed) {
            return CompletableFuture.failedFuture(new BroadcastClosedException("proposer client is closed; the value was not ordered"));
        }
        if (!permits.tryAcquire()) {
            return CompletableFuture.failedFuture(new OverloadedException("the PBFT proposer client already has "
                    + config.maxPending() + " proposals pending (maxPending); the value was not ordered"));
        }
        byte[] copy = value.clone();
        CompletableFuture<Long> result = new CompletableFuture<>();
        try {
            loop.execute(() -> enqueue(copy, result));
        } catch (RejectedExecutionException e) {
            permits.release();
            return CompletableFuture.failedFuture(new BroadcastClosedException("proposer client is closed; the value was not ordered"));
        }
        return result;
    }

    private void enqueue(byte[] value, CompletableFuture<Long> result) {
        if (closed) {
            permits.release();
            result.completeExceptionally(new BroadcastClosedException("proposer client is closed; the value was not ordered"));
            return;
        }
        Pending p = new Pending(++nextCorrelation, value);
        p.future.whenComplete((i, e) -> {
            if (e == null) {
                result.complete(i);
            } else {
                result.completeExceptionally(e);
            }
        });
        pending.put(p.correlation, p);
        p.timer = loop.schedule(() -> timedOut(p), config.ackTimeout().toNanos(), TimeUnit.NANOSECONDS);
        Channel ch = link.channel();
        if (ch != null && ch.isActive()) {
            send(p, ch);
        } else {
            link.connectIfIdle();
        }
    }

    private void send(Pending p, Channel ch) {
        if (p.sentOn == null) {
            p.sentOn = ch;
            ch.writeAndFlush(Unpooled.wrappedBuffer(ProposalFrames.propose(p.correlation, p.value)), ch.voidPromise());
        }
    }

    private void finish(Pending p, Long instance, Throwable error) {
        if (pending.remove(p.correlation) == null) {
            return;
        }
        if (p.timer != null) {
            p.timer.cancel(false);
        }
        permits.release();
        if (error == null) {
            p.future.complete(instance);
        } else {
            p.future.completeExceptionally(error);
        }
    }

    private void timedOut(Pending p) {
        if (!pending.containsKey(p.correlation)) {
            return;
        }
        if (p.sentOn == null) {
            finish(p, null, new OverloadedException("no PBFT replica's proposal port could be reached within "
                    + config.ackTimeout().toMillis() + " ms; the value was not ordered"));
            return;
        }
        // The entry replica is silent (dead, lagging, or dropping on purpose): give up on it. Closing the connection
        // fails everything sent on it (outcome unknown) and the next attempt goes to the next replica.
        LOG.debug("replica {} did not answer within {} ms; moving on", target.get(), config.ackTimeout().toMillis());
        finish(p, null, new OutcomeUnknownException("replica " + target.get() + " did not answer within "
                + config.ackTimeout().toMillis() + " ms; the value may still be ordered"));
        p.sentOn.close();
    }

    /** Fails what was sent on {@code ch}: it may have been ordered. Loop only. */
    private void lost(Channel ch, String why) {
        List<Pending> sent = new ArrayList<>();
        for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.sentOn == ch) {
                sent.add(p);
            }
        }
        for (Pending p : sent) {
            finish(p, null, new OutcomeUnknownException(why + " before it answered; the value may still be ordered"));
        }
    }

    /** Reads one connection's answers. */
    private final class Answers extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] frame = LengthFraming.take(msg);
            Channel ch = ctx.channel();
            try {
                byte type = ProposalFrames.type(frame);
                Pending p = pending.get(ProposalFrames.correlation(frame));
                if (type == ProposalFrames.ORDERED) {
                    long instance = ProposalFrames.instance(frame);
                    if (p != null && p.sentOn == ch) {
                        finish(p, instance, null);
                    }
                } else if (type == ProposalFrames.REFUSED) {
                    Refused code = ProposalFrames.refusedCode(frame);
                    String reason = ProposalFrames.refusedReason(frame);
                    if (p != null && p.sentOn == ch) {
                        refused(p, ch, code, reason);
                    }
                } else {
                    throw new IllegalArgumentException("an answer of type " + type);
                }
            } catch (IllegalArgumentException e) {
                LOG.warn("replica {} sent a malformed answer ({}); moving to the next replica", target.get(), e.getMessage());
                ch.close();
            }
        }

        private void refused(Pending p, Channel ch, Refused code, String reason) {
            switch (code) {
                case OVERLOADED -> finish(p, null, new OverloadedException(reason));
                case NOT_ORDERED -> {
                    finish(p, null, new OverloadedException(reason + " (proposing through the next replica)"));
                    ch.close();
                }
                case OUTCOME_UNKNOWN -> {
                    finish(p, null, new OutcomeUnknownException(reason));
                    ch.close();
                }
                default -> throw new IllegalStateException("unreachable");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("proposal connection {} failed: {}", ctx.channel(), cause.toString());
            ctx.close();
        }
    }

    /**
     * Closes the connection; proposals not yet answered fail with {@link BroadcastClosedException} (those already sent
     * may still be ordered; the message says so). Idempotent; waits for the loop to end (not from it).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        thread.shutdown(() -> {
            link.close();
            for (Pending p : new ArrayList<>(pending.values())) {
                finish(p, null, new BroadcastClosedException("proposer client closed before replica answered; the value "
                        + (p.sentOn == null ? "was not ordered" : "may still be ordered")));
            }
        });
    }

    @Override
    public String toString() {
        return "PbftProposerClient[entry replica " + target.get() + " of " + replicas + (closed ? ", closed" : "") + "]";
    }
}
