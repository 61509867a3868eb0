package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.LocalSequencer;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.Subscription;
import io.psmr.ordering.ringpaxos.Learner;
import io.psmr.ordering.ringpaxos.Proposer;
import io.psmr.ordering.ringpaxos.Ready;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link AtomicBroadcast} over Ring Paxos on TCP: one Ring Paxos {@link Learner} node and, optionally, one
 * {@link Proposer} node of a cluster, each a {@link RingPaxosNode} with its own event-loop thread.
 *
 * <h2>Instances: gap-free renumbering</h2>
 * The learner core delivers decided values in Paxos-instance order and already skips no-ops and duplicate
 * decisions of one proposal, so Paxos instance numbers have gaps. This adapter numbers the delivered values
 * 1, 2, 3, … in delivery order. Every learner of the cluster delivers the same values in the same order (Ring
 * Paxos total order, with deterministic skipping), so every {@code RingPaxosBroadcast} of a cluster gives
 * each value the same instance.
 *
 * <h2>Delivery and retention</h2>
 * Delivered values enter an internal {@link LocalSequencer} (the reference implementation of the SPI), which
 * holds the last {@link Builder#retainedInstances(int) retainedInstances} values and serves subscriptions:
 * each has its own delivery thread, exactly as in {@code LocalSequencer}. When the slowest subscription is a
 * whole window behind, the adapter stops reading from the network (Netty auto-read off on the learner's
 * inbound connections) and keeps at most the values of the messages already read (at most the learner
 * buffer plus one read's worth) until there is room again; it checks every tick. The network node runs
 * from {@link Builder#build()}: values ordered before anyone subscribes are retained only within the window.
 *
 * <h2>Proposals</h2>
 * {@link #propose} queues the value (at most {@link Builder#maxPendingProposals(int) maxPendingProposals}
 * queued or in flight; beyond that the future fails at once with {@link OverloadedException} and the value
 * is not ordered). The proposer core takes values from the queue as its window allows and resends each until
 * it is decided. The future completes with the value's (renumbered) instance when this adapter's own
 * learner delivers it, so a {@code propose} needs the learner too. On {@link #close()}, values still queued
 * fail with {@link BroadcastClosedException} and were not ordered; values already handed to the proposer
 * core also fail with {@link BroadcastClosedException}, but <b>may</b> have been ordered (the message says so):
 * this is the one place where it deviates from the SPI, because a network proposer cannot know.
 *
 * <h2>Threads</h2>
 * All public methods may be called from any thread. The proposer and learner cores are touched only on
 * their nodes' event-loop threads; futures complete on the learner's event-loop thread (dependent stages
 * must not block).
 */
public final class RingPaxosBroadcast implements AtomicBroadcast {

    private static final Logger LOG = LoggerFactory.getLogger(RingPaxosBroadcast.class);

    private enum State { NEW, RUNNING, CLOSED }

    private final LocalSequencer log;
    private final RingPaxosNode learnerNode;
    private final ProposerEndpoint proposer;
    private final int proposerId;
    private final int maxValueBytes;

    private final Object stateLock = new Object();
    private State state = State.NEW; // guarded by stateLock

    // Learner event-loop thread only.
    private final ArrayDeque<Ready.Delivery> overflow = new ArrayDeque<>();

    private RingPaxosBroadcast(Builder b) {
        this.maxValueBytes = b.transport.maxValueBytes();
        this.log = LocalSequencer.builder().retainedInstances(b.retainedInstances).maxValueBytes(Math.max(1, maxValueBytes))
                .proposeTimeout(Duration.ZERO).maxLearners(b.maxLearners)
                .threadNamePrefix("psmr-ringpaxos-" + b.learnerId + "-").build();
        log.start();
        this.proposerId = b.proposerId;
        Learner learner = new Learner(b.config, b.learnerId);
        this.learnerNode = RingPaxosNode.start(learner, b.config, b.transport, b.learnerBind, b.peers,
                new RingPaxosNode.Listener() {
                    @Override
                    public void onReady(Ready ready) {
                        overflow.addAll(ready.deliveries());
                        drainOverflow();
                    }

                    @Override
                    public void onTick() {
                        if (!overflow.isEmpty()) {
                            drainOverflow();
                        }
                    }
                });
        if (proposerId >= 0) {
            try {
                this.proposer = new ProposerEndpoint(b.config, proposerId, b.firstSeq, b.transport, b.proposerBind,
                        b.peers, b.maxPendingProposals, false);
            } catch (RuntimeException e) {
                learnerNode.close();
                log.close();
                throw e;
            }
        } else {
            this.proposer = null;
        }
    }

    /**
     * A builder.
     *
     * @param config    the cluster
     * @param learnerId this adapter's learner, one of {@link RingPaxosConfig#learners()}
     * @param transport transport settings
     * @param peers     every node's address by id (may be filled in later; see {@link RingPaxosNode})
     */
    public static Builder builder(RingPaxosConfig config, int learnerId, TransportConfig transport,
                                  Map<Integer, InetSocketAddress> peers) {
        return new Builder(config, learnerId, transport, peers);
    }

    /** Where the learner node listens. */
    public InetSocketAddress learnerAddress() {
        return learnerNode.localAddress();
    }

    /** Where the proposer node listens, or null without a proposer. */
    public InetSocketAddress proposerAddress() {
        return proposer == null ? null : proposer.node().localAddress();
    }

    /** The learner's node (for its address and counters). */
    public RingPaxosNode learnerNode() {
        return learnerNode;
    }

    @Override
    public void start() {
        synchronized (stateLock) {
            if (state == State.CLOSED) {
                throw new IllegalStateException("broadcast is closed and cannot be started again");
            }
            state = State.RUNNING;
        }
    }

    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        ProposerEndpoint.validate(value, maxValueBytes);
        synchronized (stateLock) {
            if (state == State.NEW) {
                return CompletableFuture.failedFuture(new IllegalStateException("broadcast is not started: call start() before propose()"));
            }
            if (state == State.CLOSED) {
                return CompletableFuture.failedFuture(new BroadcastClosedException("broadcast is closed; the value was not ordered"));
            }
        }
        if (proposer == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("this broadcast has no proposer node"));
        }
        return proposer.submit(value.clone());
    }

    /** Moves delivered values into the retained log, pausing the network while it is full. Learner event-loop thread only. */
    private void drainOverflow() {
        Ready.Delivery d;
        while ((d = overflow.peek()) != null) {
            long instance;
            try {
                instance = log.propose(d.value().data()).join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof OverloadedException) {
                    learnerNode.setInboundPaused(true);
                    return;
                }
                if (e.getCause() instanceof BroadcastClosedException) {
                    overflow.clear();
                    return;
                }
                throw e;
            }
            overflow.poll();
            if (proposer != null && d.value().id().proposer() == proposerId) {
                proposer.delivered(d.value().id(), instance);
            }
        }
        learnerNode.setInboundPaused(false);
    }

    @Override
    public Subscription subscribe(long fromInstance, DeliveryListener listener) {
        return log.subscribe(fromInstance, listener);
    }

    @Override
    public long lastInstance() {
        return log.lastInstance();
    }

    @Override
    public long firstRetainedInstance() {
        return log.firstRetainedInstance();
    }

    @Override
    public void close() {
        synchronized (stateLock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        if (proposer != null) {
            proposer.close();
        }
        learnerNode.close();
        log.close();
        LOG.debug("Ring Paxos broadcast of learner {} closed", learnerNode.id());
    }

    @Override
    public String toString() {
        return "RingPaxosBroadcast[learner " + learnerNode.id() + (proposer == null ? "" : ", proposer " + proposerId)
                + ", last instance " + log.lastInstance() + "]";
    }

    /** Configures a {@link RingPaxosBroadcast}. Not thread-safe. */
    public static final class Builder {
        private final RingPaxosConfig config;
        private final int learnerId;
        private final TransportConfig transport;
        private final Map<Integer, InetSocketAddress> peers;
        private int proposerId = -1;
        private long firstSeq = 1;
        private InetSocketAddress learnerBind = new InetSocketAddress("127.0.0.1", 0);
        private InetSocketAddress proposerBind = new InetSocketAddress("127.0.0.1", 0);
        private int retainedInstances = 1024;
        private int maxPendingProposals = 1024;
        private int maxLearners = 64;

        private Builder(RingPaxosConfig config, int learnerId, TransportConfig transport,
                        Map<Integer, InetSocketAddress> peers) {
            this.config = Objects.requireNonNull(config, "config");
            this.learnerId = learnerId;
            this.transport = Objects.requireNonNull(transport, "transport");
            this.peers = Objects.requireNonNull(peers, "peers");
        }

        /** Also host this proposer (one of {@link RingPaxosConfig#proposers()}), so that {@code propose} works. */
        public Builder proposer(int id) {
            this.proposerId = id;
            return this;
        }

        /**
         * The proposer's first sequence number (default 1). A process that restarts with the same proposer id must
         * start above every number its previous incarnation used (see {@link Proposer}).
         */
        public Builder firstSeq(long seq) {
            if (seq < 1) {
                throw new IllegalArgumentException("firstSeq must be at least 1, got " + seq);
            }
            this.firstSeq = seq;
            return this;
        }

        /** Where the learner node listens (default 127.0.0.1, a free port). */
        public Builder learnerBind(InetSocketAddress address) {
            this.learnerBind = Objects.requireNonNull(address);
            return this;
        }

        /** Where the proposer node listens (default 127.0.0.1, a free port). */
        public Builder proposerBind(InetSocketAddress address) {
            this.proposerBind = Objects.requireNonNull(address);
            return this;
        }

        /** Delivered values retained for subscriptions, and the flow-control window (default 1,024). */
        public Builder retainedInstances(int n) {
            this.retainedInstances = n;
            return this;
        }

        /** Proposals queued or in flight at once (default 1,024); at least 1. */
        public Builder maxPendingProposals(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxPendingProposals must be at least 1, got " + n);
            }
            this.maxPendingProposals = n;
            return this;
        }

        /** Most subscriptions at once (default 64). */
        public Builder maxLearners(int n) {
            this.maxLearners = n;
            return this;
        }

        /** Binds the node(s) and starts them; call {@link RingPaxosBroadcast#start()} before proposing. */
        public RingPaxosBroadcast build() {
            return new RingPaxosBroadcast(this);
        }
    }
}
