package io.psmr.ordering.pbft;

import io.psmr.ordering.BroadcastLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A whole COP-parallelised PBFT cluster in one JVM: {@code n = 3f + 1} {@link PbftReplicaNode replicas}, each with
 * {@code Np} pillar agents and an execution agent on its own {@link io.psmr.ordering.agent.AgentRunner}, joined by
 * a {@link LoopbackNetwork} that carries every message as an encoded frame sealed with a real HMAC-SHA256
 * ({@link HmacAuthenticator} under {@link PbftKeys#forTesting keys derived from a seed}), and one
 * {@link PbftBroadcast} per replica. Hand {@link #broadcast(int)} to whatever subscribes or proposes (as
 * {@code LoopbackRingPaxos}); every broadcast proposes, each through its own replica.
 *
 * <p>Thread-safe; close it once (closing twice is harmless).
 */
public final class LoopbackPbft implements AutoCloseable {

    /** Makes the protocol core of one pillar of one replica. */
    @FunctionalInterface
    public interface PillarFactory {
        /** The core of {@code pillar} at {@code replica}. */
        PbftCore create(PbftConfig config, int replica, int pillar, Authenticator auth);
    }

    private final PbftConfig config;
    private final LoopbackNetwork network;
    private final List<PbftReplicaNode> nodes = new ArrayList<>();
    private final List<PbftBroadcast> broadcasts = new ArrayList<>();

    private LoopbackPbft(Builder b) {
        this.config = b.config;
        int n = config.replicaCount();
        int np = config.pillars();
        Authenticator auth = new HmacAuthenticator(PbftKeys.forTesting(b.keySeed, n, n * np));
        this.network = new LoopbackNetwork(n, np, b.frameCapacity, b.limits.maxPendingProposals());
        try {
            for (int r = 0; r < n; r++) {
                PbftBroadcast broadcast = PbftBroadcast.create(r, config, network.intake(r), auth, b.limits, 1);
                broadcasts.add(broadcast);
                List<PbftCore> cores = new ArrayList<>();
                for (int p = 0; p < np; p++) {
                    cores.add(b.pillars.create(config, r, p, auth));
                }
                nodes.add(new PbftReplicaNode(r, config, cores, network, broadcast::deliver, b.settings, System::nanoTime));
            }
            nodes.forEach(PbftReplicaNode::start);
            broadcasts.forEach(PbftBroadcast::start);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** A builder for a cluster of {@code config}. */
    public static Builder builder(PbftConfig config) {
        return new Builder(config);
    }

    /** The cluster's configuration. */
    public PbftConfig config() {
        return config;
    }

    /** Replica {@code i}'s broadcast. */
    public PbftBroadcast broadcast(int i) {
        return broadcasts.get(i);
    }

    /** Replica {@code i}'s node. */
    public PbftReplicaNode node(int i) {
        return nodes.get(i);
    }

    /** The network between the replicas (for its drop counters). */
    public LoopbackNetwork network() {
        return network;
    }

    /** The first failure of any replica (a fail-stopped agent), if one failed. */
    public Optional<Throwable> failure() {
        return nodes.stream().map(PbftReplicaNode::failure).flatMap(Optional::stream).findFirst();
    }

    /** Closes the broadcasts (their subscriptions first), then the replicas. */
    @Override
    public void close() {
        broadcasts.forEach(PbftBroadcast::close);
        nodes.forEach(PbftReplicaNode::close);
    }

    /** Configures a {@link LoopbackPbft}. Not thread-safe. */
    public static final class Builder {
        private final PbftConfig config;
        private PbftReplicaNode.Settings settings = PbftReplicaNode.Settings.defaults();
        private PillarFactory pillars = PbftPillar::new;
        private int frameCapacity = 4096;
        private BroadcastLimits limits = BroadcastLimits.DEFAULTS;
        private long keySeed = 0x5053_4d52L;

        private Builder(PbftConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** Threads, tick and queue bounds of every replica (default {@link PbftReplicaNode.Settings#defaults()}). */
        public Builder settings(PbftReplicaNode.Settings s) {
            this.settings = Objects.requireNonNull(s, "settings");
            return this;
        }

        /** The pillar cores (default: {@link PbftPillar}). */
        public Builder pillars(PillarFactory factory) {
            this.pillars = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Frames buffered per (replica, pillar) before the network drops (default 4,096); at least 1. */
        public Builder frameCapacity(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("frameCapacity must be at least 1, got " + n);
            }
            this.frameCapacity = n;
            return this;
        }

        /** Each broadcast's values retained, proposals in flight and subscriptions (default {@link BroadcastLimits#DEFAULTS}). */
        public Builder limits(BroadcastLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }




        /** Seed of the test keys (default fixed). */
        public Builder keySeed(long seed) {
            this.keySeed = seed;
            return this;
        }

        /** Starts every replica; the broadcasts accept proposals when this returns. */
        public LoopbackPbft build() {
            int maxPendingProposals = limits.maxPendingProposals();
            if (maxPendingProposals > settings.dedupWindow()) {
                throw new IllegalArgumentException("maxPendingProposals (" + maxPendingProposals + ") must not exceed the"
                        + " replicas' dedupWindow (" + settings.dedupWindow() + "): exactly-once delivery assumes a"
                        + " client has at most dedupWindow requests outstanding");
            }
            if ((long) maxPendingProposals * config.replicaCount() > config.maxPendingRequests()) {
                throw new IllegalArgumentException("maxPendingProposals (" + maxPendingProposals + ") times "
                        + config.replicaCount() + " replicas exceeds the pillars' maxPendingRequests ("
                        + config.maxPendingRequests() + "): a pillar could refuse forwarded requests as overloaded");
            }
            return new LoopbackPbft(this);
        }
    }
}
