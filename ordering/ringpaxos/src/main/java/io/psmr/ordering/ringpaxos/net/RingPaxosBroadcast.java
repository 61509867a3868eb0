package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.BroadcastLimits;
import io.psmr.ordering.RelayedBroadcast;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.LocalSequencer;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.RelayLog;
import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.ringpaxos.CheckpointTracker;
import io.psmr.ordering.ringpaxos.Learner;
import io.psmr.ordering.ringpaxos.LearnerCheckpoint;
import io.psmr.ordering.ringpaxos.Message;
import io.psmr.ordering.ringpaxos.Output;
import io.psmr.ordering.ringpaxos.Proposer;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.StorageChange;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
 * Delivered values enter a {@link RelayLog} (an internal {@link LocalSequencer}, the reference implementation of the SPI), which
 * holds the last {@link BroadcastLimits#retainedInstances() retainedInstances} values and serves subscriptions:
 * each has its own delivery thread, exactly as in {@code LocalSequencer}. When the slowest subscription is a
 * whole window behind, the adapter stops reading from the network (Netty auto-read off on the learner's
 * inbound connections) and keeps at most the values of the messages already read (at most the learner
 * buffer plus one read's worth) until there is room again; it checks every tick. The network node runs
 * from {@link Builder#build()}: values ordered before anyone subscribes are retained only within the window.
 *
 * <h2>Proposals</h2>
 * {@link #propose} queues the value (at most {@link BroadcastLimits#maxPendingProposals() maxPendingProposals}
 * queued or in flight; beyond that the future fails at once with {@link OverloadedException} and the value
 * is not ordered). The proposer core takes values from the queue as its window allows and resends each until
 * it is decided. The future completes with the value's (renumbered) instance when this adapter's own
 * learner delivers it, so a {@code propose} needs the learner too. On {@link #close()}, values still queued
 * fail with {@link BroadcastClosedException} and were not ordered; values already handed to the proposer
 * core also fail with {@link BroadcastClosedException}, but <b>may</b> have been ordered (the message says so):
 * this is the one place where it deviates from the SPI, because a network proposer cannot know.
 *
 * <h2>Checkpoints and resuming (for replicas that can restart)</h2>
 * With {@link Builder#checkpointEvery(int) checkpointEvery(k)}, whenever the adapter numbers a value {@code n} with
 * {@code n % k == 0} it captures, on the learner's thread, the {@link LearnerCheckpoint} as of exactly that value
 * (the Paxos instance it was decided in and the duplicate filter), and keeps the last
 * {@value #KEPT_CHECKPOINTS}: {@link #learnerCheckpointAt(long)}. The host saves it with its own checkpoint of
 * the state after instance {@code n}, and once that is durable calls {@link #reportCheckpoint(long)}: only then does
 * the learner report the matching Paxos instance to the acceptors as safe (until then it reports the instance it
 * resumed from, or 0), so the acceptors never discard what a restart from the last durable checkpoint needs.
 * Without {@code checkpointEvery} the learner reports everything it delivered (hosts that never restart).
 *
 * <p>{@link Builder#resumeFrom(LearnerCheckpoint, long) resumeFrom(state, n)} starts the learner at
 * {@code state}'s Paxos instance + 1 with its duplicate filter, and numbers the values it delivers from {@code n + 1}
 * (subscribe from {@code n + 1}). If the acceptors have already discarded what the learner needs, it can never catch
 * up: {@link #trimmedPast()} completes (once) with the trim point, a WARN line says so, and the host must install a
 * newer checkpoint from another replica.
 *
 * <h2>Threads</h2>
 * All public methods may be called from any thread. The proposer and learner cores are touched only on
 * their nodes' event-loop threads; futures complete on the learner's event-loop thread (dependent stages
 * must not block).
 */
public final class RingPaxosBroadcast extends RelayedBroadcast {

    private static final Logger LOG = LoggerFactory.getLogger(RingPaxosBroadcast.class);

    /** How many learner checkpoints {@link #learnerCheckpointAt(long)} keeps (the latest ones). */
    public static final int KEPT_CHECKPOINTS = 4;

    private final RingPaxosNode learnerNode;
    private final ProposerEndpoint proposer;
    private final int proposerId;
    private final int maxValueBytes;

    // Learner event-loop thread only.
    private final ArrayDeque<Output.Delivery> overflow = new ArrayDeque<>();
    private final CheckpointTracker tracker; // null without checkpointEvery
    private boolean headTracked; // whether the tracker has seen overflow's head (it may wait for room in the log)
    private final int checkpointEvery;
    private final Learner learner;

    // Renumbered instance -> the learner's state right after delivering it; the last KEPT_CHECKPOINTS. Guarded by itself.
    private final LinkedHashMap<Long, LearnerCheckpoint> checkpoints = new LinkedHashMap<>();
    private final CompletableFuture<Long> trimmedPast = new CompletableFuture<>();

    private RingPaxosBroadcast(Builder b) {
        super(new RelayLog(b.limits.relayLogSequencer()
                .maxValueBytes(Math.max(1, b.transport.maxValueBytes())).firstInstance(b.resumeInstance + 1)
                .threadNamePrefix("psmr-ringpaxos-" + b.learnerId + "-")));
        this.maxValueBytes = b.transport.maxValueBytes();
        this.proposerId = b.proposerId;
        this.checkpointEvery = b.checkpointEvery;
        this.tracker = checkpointEvery > 0 ? new CheckpointTracker(b.config, b.resumeState) : null;
        this.learner = new Learner(b.config, b.learnerId, b.resumeState,
                checkpointEvery > 0 ? Learner.Reporting.CHECKPOINTS : Learner.Reporting.DELIVERIES);
        if (b.resumeState.deliveredThrough() > 0 || b.resumeInstance > 0) {
            LOG.info("learner {} resumes after Paxos instance {} (renumbered instance {})", b.learnerId,
                    b.resumeState.deliveredThrough(), b.resumeInstance);
        }
        this.learnerNode = RingPaxosNode.start(learner, b.config, b.transport, b.learnerBind, b.peers,
                new RingPaxosNode.Listener() {
                    @Override
                    public void onReady(Ready<Message, StorageChange, Output> ready) {
                        overflow.addAll(Output.deliveries(ready.outputs()));
                        drainOverflow();
                        long trimPoint = Output.trimmedPast(ready.outputs());
                        if (trimPoint > 0) {
                            onTrimmedPast(trimPoint);
                        }
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
                        b.peers, b.limits.maxPendingProposals(), false);
            } catch (RuntimeException e) {
                log.close(learnerNode::close);
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
    public static Builder builder(RingPaxosConfig config, int learnerId, RingPaxosTransportConfig transport,
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
        log.start();
    }

    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        ProposerEndpoint.validate(value, maxValueBytes);
        CompletableFuture<Long> refused = log.refusal();
        if (refused != null) {
            return refused;
        }
        if (proposer == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("this broadcast has no proposer node"));
        }
        return proposer.submit(value.clone());
    }

    /** Moves delivered values into the retained log, pausing the network while it is full. Learner event-loop thread only. */
    private void drainOverflow() {
        Output.Delivery d;
        while ((d = overflow.peek()) != null) {
            if (tracker != null && !headTracked) {
                // Capture before the value enters the log, so no subscriber can see instance n before its checkpoint;
                // only this thread appends to the log, so n is the instance the value is about to get.
                long n = log.lastInstance() + 1;
                tracker.delivered(d);
                if (n % checkpointEvery == 0) {
                    keep(n, tracker.checkpoint());
                }
                headTracked = true;
            }
            long instance = log.append(d.value().data());
            if (instance == RelayLog.FULL) {
                learnerNode.setInboundPaused(true);
                return;
            }
            if (instance == RelayLog.CLOSED) {
                overflow.clear();
                headTracked = false;
                return;
            }
            overflow.poll();
            headTracked = false;
            if (proposer != null && d.value().id().proposer() == proposerId) {
                proposer.delivered(d.value().id(), instance);
            }
        }
        learnerNode.setInboundPaused(false);
    }

    private void keep(long instance, LearnerCheckpoint state) {
        synchronized (checkpoints) {
            checkpoints.put(instance, state);
            while (checkpoints.size() > KEPT_CHECKPOINTS) {
                checkpoints.remove(checkpoints.keySet().iterator().next());
            }
        }
    }

    private void onTrimmedPast(long trimPoint) {
        LOG.warn("learner {} was trimmed past: the acceptors discarded every Paxos instance up to {}, including the "
                        + "next one it needs (it had delivered through renumbered instance {}); it cannot catch up by "
                        + "fetching and has stopped; its host must install a newer checkpoint from another replica",
                learnerNode.id(), trimPoint, log.lastInstance());
        trimmedPast.complete(trimPoint);
    }

    /**
     * The learner's state right after it delivered renumbered instance {@code n}, if {@code n} is a multiple of
     * {@link Builder#checkpointEvery(int) checkpointEvery} among the last {@value #KEPT_CHECKPOINTS} captured. Any
     * thread. It is captured before instance {@code n} reaches any subscriber, so a host that checkpoints upon
     * delivering {@code n} finds it.
     */
    public Optional<LearnerCheckpoint> learnerCheckpointAt(long n) {
        synchronized (checkpoints) {
            return Optional.ofNullable(checkpoints.get(n));
        }
    }

    /**
     * The host's checkpoint of its state through renumbered instance {@code n} is durable: from now on the learner
     * reports the Paxos instance of {@link #learnerCheckpointAt(long) learnerCheckpointAt(n)} to the acceptors as
     * safe, so they may discard up to it. Any thread; returns at once (the learner's thread applies it).
     *
     * @throws IllegalStateException    without {@link Builder#checkpointEvery(int) checkpointEvery}
     * @throws IllegalArgumentException if no learner checkpoint at {@code n} is kept (not a multiple of the interval,
     *                                  not delivered yet, or older than the last {@value #KEPT_CHECKPOINTS})
     */
    public void reportCheckpoint(long n) {
        if (tracker == null) {
            throw new IllegalStateException("this broadcast does not checkpoint: build it with checkpointEvery(k)");
        }
        LearnerCheckpoint state;
        synchronized (checkpoints) {
            state = checkpoints.get(n);
            if (state == null) {
                throw new IllegalArgumentException("no learner checkpoint kept at instance " + n + " (kept: "
                        + checkpoints.keySet() + ")");
            }
        }
        learnerNode.execute(() -> learner.checkpointed(state.deliveredThrough()));
    }

    /**
     * As {@link #reportCheckpoint(long)}, with the learner checkpoint the host stored (the one
     * {@link #learnerCheckpointAt(long)} returned when it took its checkpoint): works however far the
     * learner has moved on since, when the instance's capture is no longer kept.
     *
     * @throws IllegalStateException without {@link Builder#checkpointEvery(int) checkpointEvery}
     */
    public void reportCheckpoint(LearnerCheckpoint state) {
        Objects.requireNonNull(state, "state");
        if (tracker == null) {
            throw new IllegalStateException("this broadcast does not checkpoint: build it with checkpointEvery(k)");
        }
        learnerNode.execute(() -> learner.checkpointed(state.deliveredThrough()));
    }

    /**
     * Completes once, with an acceptor's trim point, if the acceptors discarded the Paxos instance this learner needs
     * next: it can never catch up and has stopped delivering; the host must install a newer checkpoint from another
     * replica and start a new broadcast {@link Builder#resumeFrom resumed} from it. Never completes otherwise (not even
     * on close). Dependent stages run on the learner's event-loop thread and must not block.
     */
    public CompletableFuture<Long> trimmedPast() {
        return trimmedPast;
    }

    @Override
    public void close() {
        boolean first = log.close(() -> {
            if (proposer != null) {
                proposer.close();
            }
            learnerNode.close();
        });
        if (!first) {
            return;
        }
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
        private final RingPaxosTransportConfig transport;
        private final Map<Integer, InetSocketAddress> peers;
        private int proposerId = -1;
        private long firstSeq = 1;
        private InetSocketAddress learnerBind = new InetSocketAddress("127.0.0.1", 0);
        private InetSocketAddress proposerBind = new InetSocketAddress("127.0.0.1", 0);
        private BroadcastLimits limits = BroadcastLimits.DEFAULTS;
        private LearnerCheckpoint resumeState = LearnerCheckpoint.INITIAL;
        private long resumeInstance;
        private int checkpointEvery;

        private Builder(RingPaxosConfig config, int learnerId, RingPaxosTransportConfig transport,
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

        /** Values retained, proposals in flight and subscriptions (default {@link BroadcastLimits#DEFAULTS}). */
        public Builder limits(BroadcastLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }




        /**
         * Resume a replica: the learner starts after {@code state}'s Paxos instance with its duplicate filter, and
         * the values it delivers are numbered from {@code deliveredInstance + 1} (subscribe from there). Both come
         * from the same checkpoint: {@code state} is what {@link #learnerCheckpointAt(long)
         * learnerCheckpointAt(deliveredInstance)} returned.
         */
        public Builder resumeFrom(LearnerCheckpoint state, long deliveredInstance) {
            Objects.requireNonNull(state, "state");
            if (deliveredInstance < 0) {
                throw new IllegalArgumentException("deliveredInstance must be non-negative, got " + deliveredInstance);
            }
            if (deliveredInstance > state.deliveredThrough()) {
                throw new IllegalArgumentException("renumbered instance " + deliveredInstance + " cannot lie beyond Paxos "
                        + "instance " + state.deliveredThrough() + ": each value takes at least one Paxos instance");
            }
            this.resumeState = state;
            this.resumeInstance = deliveredInstance;
            return this;
        }

        /**
         * Capture the learner's checkpoint at every renumbered instance that is a multiple of {@code k}, and report
         * only checkpoints the host declared durable ({@link #reportCheckpoint(long)}). At most
         * {@code logCapacity / 2}: the acceptors keep at most {@code logCapacity} instances past the lowest
         * reported checkpoint, so the next checkpoint must be reachable within them (with room for no-ops and
         * duplicates), or ordering would stop.
         */
        public Builder checkpointEvery(int k) {
            if (k < 1 || k > config.logCapacity() / 2) {
                throw new IllegalArgumentException("checkpointEvery must be in 1.." + config.logCapacity() / 2
                        + " (half the acceptors' logCapacity " + config.logCapacity() + "), got " + k);
            }
            this.checkpointEvery = k;
            return this;
        }

        /** Binds the node(s) and starts them; call {@link RingPaxosBroadcast#start()} before proposing. */
        public RingPaxosBroadcast build() {
            return new RingPaxosBroadcast(this);
        }
    }
}
