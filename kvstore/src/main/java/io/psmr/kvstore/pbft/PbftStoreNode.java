package io.psmr.kvstore.pbft;

import io.psmr.ordering.BroadcastLimits;
import io.psmr.kvstore.Checkpointing;
import io.psmr.kvstore.ForgedReplies;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaCheckpointState;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplyRouter;
import io.psmr.kvstore.net.ReplyServer;
import io.psmr.kvstore.net.ReplyServerConfig;
import io.psmr.ordering.pbft.HmacAuthenticator;
import io.psmr.ordering.pbft.PbftBroadcast;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.pbft.PbftResumeState;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PbftPillar;
import io.psmr.ordering.pbft.PbftReplicaNode;
import io.psmr.ordering.pbft.PillarHandover;
import io.psmr.ordering.pbft.PbftCore;
import io.psmr.ordering.pbft.PillarNetwork;
import io.psmr.ordering.pbft.PillarSnapshot;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import io.psmr.ordering.pbft.byzantine.ByzantinePillarNetwork;
import io.psmr.ordering.pbft.net.PbftNettyTransport;
import io.psmr.ordering.pbft.net.PbftProposalServer;
import io.psmr.ordering.pbft.net.PbftTransportConfig;
import io.psmr.ordering.pbft.net.PbftTransportStats;
import io.psmr.ordering.pbft.net.PeerAddresses;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One PBFT replica with its store, as one process runs it: the replica's pillars on a {@link PbftNettyTransport}
 * (one port per pillar, private connections to the same pillar of every other replica), its {@link PbftBroadcast}, a
 * store {@link Replica} (id {@code replica + 1}) executing that broadcast's order, a {@link ReplyServer} its replies
 * go through, and a {@link PbftProposalServer} through which proxies in other processes propose
 * ({@code io.psmr.ordering.pbft.net.PbftProposerClient}). What {@code PbftReplicaRuntime} hosts in a cluster
 * process; tests run several in one JVM over real sockets.
 *
 * <p>Thread-safe; close it once (closing twice is harmless).
 */
public final class PbftStoreNode implements AutoCloseable {

    /** Proposals in flight through this replica's broadcast (its proposal port's proxies together). */
    public static final int MAX_PENDING_PROPOSALS = EmbeddedPbftCluster.MAX_PROPOSALS_PER_REPLICA;
    /** Delivered values the broadcast retains for its subscriber (the store replica). */
    public static final int RETAINED_INSTANCES = 1024;

    /**
     * Where one replica listens.
     *
     * @param pillars   one port per pillar (PBFT messages between replicas)
     * @param proposals the proposal port (proxies' batches)
     * @param replies   the reply port (proxies' reply connections)
     */
    public record Addresses(List<InetSocketAddress> pillars, InetSocketAddress proposals, InetSocketAddress replies) {
        /** Copies. */
        public Addresses {
            pillars = List.copyOf(pillars);
            Objects.requireNonNull(proposals, "proposals");
            Objects.requireNonNull(replies, "replies");
        }
    }

    /**
     * What a replica says about itself, for {@code cluster status}.
     *
     * @param pillars    each pillar's view, last stable checkpoint (h) and core refusals
     * @param transport  the transport's refusals (closed connections, by reason) and drops
     * @param proposalRefusals connections the proposal port refused, by reason
     */
    public record Status(List<PillarSnapshot> pillars, PbftTransportStats transport, Map<Object, Long> proposalRefusals) {
    }

    private final int replica;
    private final PbftConfig config;
    private final PbftNettyTransport transport;
    private final PbftReplicaNode node;
    private final PbftBroadcast broadcast;
    private final ReplyServer replies;
    private final Replica store;
    private final PbftProposalServer proposals;
    /** Testing only: what this replica does wrong on purpose, or null (a correct replica). */
    private final ByzantineMode byzantine;
    private final ByzantinePillarNetwork lyingNetwork;
    private final ForgedReplies forgedReplies;

    /**
     * How a replica checkpoints and where it resumes (docs/pbft.md, state transfer).
     *
     * @param checkpointing the store's checkpoints (taken without skipping); its hook must be {@code pbft}
     * @param pbft          the bridge that certifies them as PBFT checkpoints
     * @param installed     the checkpoint to resume from (installed into the store's file), or null: from the start
     * @param adopt         the stable checkpoint that certified {@code installed} (a transferred one), or null
     * @param handover      with {@code adopt}: what each pillar of the incarnation this one replaces hands over
     *                      ({@link PbftReplicaNode#handover}), or empty if not known; the pillars abstain from leading
     *                      the forgotten instances only up to the views it entered, and join the view it saw the
     *                      others in at once
     */
    public record Checkpoints(Checkpointing checkpointing, PbftCheckpoints pbft, InstalledCheckpoint installed,
                              StableCheckpoint adopt, List<PillarHandover> handover) {
        /** Checks that the hook is the bridge, and that a handover comes only with a checkpoint to adopt. */
        public Checkpoints {
            Objects.requireNonNull(checkpointing, "checkpointing");
            Objects.requireNonNull(pbft, "pbft");
            handover = List.copyOf(handover);
            if (!handover.isEmpty() && adopt == null) {
                throw new IllegalArgumentException("the handover of a stale incarnation needs a stable checkpoint to adopt");
            }
            if (checkpointing.hook() != pbft) {
                throw new IllegalArgumentException("the store's checkpoint hook must be the PBFT bridge");
            }
            if (adopt != null && installed == null) {
                throw new IllegalArgumentException("a stable checkpoint to adopt needs the checkpoint it certified");
            }
        }

        /** Without the handover of a stale incarnation: recovering pillars abstain in every view. */
        public Checkpoints(Checkpointing checkpointing, PbftCheckpoints pbft, InstalledCheckpoint installed,
                           StableCheckpoint adopt) {
            this(checkpointing, pbft, installed, adopt, List.of());
        }
    }

    private PbftStoreNode(int replica, PbftConfig config, PbftKeys keys, Addresses bind, PeerAddresses peers,
                          ReplicaConfig storeConfig, long firstRequestNumber, Checkpoints checkpoints,
                          ByzantineMode byzantine, boolean dormant, LinkSecurity security) {
        this.byzantine = byzantine;
        this.replica = replica;
        this.config = config;
        PbftNettyTransport t = null;
        PbftReplicaNode n = null;
        PbftBroadcast b = null;
        ReplyServer rs = null;
        Replica r = null;
        ByzantinePillarNetwork lying = null;
        ForgedReplies forging = null;
        try {
            t = PbftNettyTransport.start(replica, config, bind.pillars(), peers,
                    PbftTransportConfig.defaults().withSecurity(security));
            HmacAuthenticator auth = new HmacAuthenticator(keys);
            PbftResumeState resume = null;
            if (checkpoints != null && checkpoints.installed() != null) {
                try {
                    resume = PbftResumeState.fromBytes(ReplicaCheckpointState.fromBytes(
                            checkpoints.installed().state()).orderingState());
                } catch (java.io.IOException e) {
                    throw new IllegalArgumentException("checkpoint " + checkpoints.installed().instance()
                            + " holds no PBFT resume state: " + e.getMessage(), e);
                }
            }
            b = PbftBroadcast.create(replica, config, t, auth,
                    new BroadcastLimits(RETAINED_INSTANCES, MAX_PENDING_PROPOSALS, BroadcastLimits.DEFAULTS.maxLearners()),
                    firstRequestNumber, resume == null ? 1 : resume.nextInstance());
            List<PbftCore> cores = new ArrayList<>();
            if (checkpoints != null && !checkpoints.handover().isEmpty()
                    && checkpoints.handover().size() != config.pillars()) {
                throw new IllegalArgumentException("the stale incarnation had " + checkpoints.handover().size()
                        + " pillars, this one " + config.pillars());
            }
            for (int p = 0; p < config.pillars(); p++) {
                PbftPillar core = new PbftPillar(config, replica, p, auth);
                if (checkpoints != null && checkpoints.adopt() != null) {
                    // After a state transfer the stale incarnation may have led instances up to the certificate's
                    // window, which this one has forgotten: it leads none of them in the views the stale one
                    // entered (docs/pbft.md, Limits).
                    long upTo = checkpoints.adopt().seq() + config.watermarkWindow();
                    if (checkpoints.handover().isEmpty()) {
                        core.recovering(upTo);
                    } else {
                        PillarHandover from = checkpoints.handover().get(p);
                        core.recovering(upTo, from.highestViewEntered());
                        core.resumeViewsSeen(from.viewsSeen());
                    }
                }
                cores.add(core);
            }
            PillarNetwork network = t;
            PbftReplicaNode.Settings settings = PbftReplicaNode.Settings.defaults();
            if (byzantine != null && byzantine.rewritesEnvelopes()) {
                lying = new ByzantinePillarNetwork(t, replica, byzantine, config, settings.tickNanos(), auth,
                        replica, dormant); // seed: the replica id
                network = lying;
            }
            n = new PbftReplicaNode(replica, config, cores, network, b.sink(), settings,
                    System::nanoTime, checkpoints == null ? null : new PbftReplicaNode.AppCheckpoints(checkpoints.pbft(),
                    resume, checkpoints.adopt()));
            rs = ReplyServer.start(bind.replies(), ReplyServerConfig.defaults().withSecurity(security));
            if (byzantine == ByzantineMode.WRONG_REPLIES) {
                forging = new ForgedReplies(rs, dormant);
            }
            ReplyRouter router = forging != null ? forging : rs;
            // The store subscribes before the node delivers: the broadcast retains a window only for its subscribers,
            // and a replica that restarts behind the others executes a window's worth of their log within
            // milliseconds, after which instance 1 (or the checkpoint's next) would be gone.
            r = checkpoints == null ? Replica.start(storeConfig.toBuilder().replicaId(replica + 1).build(), b, router)
                    : Replica.start(storeConfig.toBuilder().replicaId(replica + 1).build(), b, router,
                    checkpoints.checkpointing().neverSkipping(), checkpoints.installed());
            n.start();
            b.start();
            this.proposals = PbftProposalServer.start(replica, b, bind.proposals(),
                    PbftProposalServer.Config.defaults(config.maxRequestBytes()).withSecurity(security));
        } catch (RuntimeException e) {
            if (r != null) {
                r.close();
            } else if (checkpoints != null && checkpoints.installed() != null) {
                checkpoints.installed().store().close(); // the replica did not take it over
            }
            if (rs != null) {
                rs.close();
            }
            if (b != null) {
                b.close();
            }
            if (n != null) {
                n.close();
            }
            if (lying != null) {
                lying.close();
            }
            if (t != null) {
                t.close();
            }
            throw e;
        }
        this.lyingNetwork = lying;
        this.forgedReplies = forging;
        this.transport = t;
        this.node = n;
        this.broadcast = b;
        this.replies = rs;
        this.store = r;
    }

    /**
     * Starts replica {@code replica} of {@code config}.
     *
     * @param keys               the replica's keys (from {@code PbftKeyFiles.load})
     * @param bind               where it listens (port 0: a free one, see the accessors)
     * @param peers              where the other replicas' pillars listen (asked at every connection attempt)
     * @param storeConfig        the store replica's configuration (its id is set to {@code replica + 1})
     * @param firstRequestNumber the first number of this replica's own PBFT clients, above any an earlier process of
     *                           this replica used ({@link PbftBroadcast#create})
     * @throws IllegalArgumentException if a store batch could exceed the PBFT request limit
     */
    public static PbftStoreNode start(int replica, PbftConfig config, PbftKeys keys, Addresses bind, PeerAddresses peers,
                                      ReplicaConfig storeConfig, long firstRequestNumber) {
        return start(replica, config, keys, bind, peers, storeConfig, firstRequestNumber, null, null);
    }

    /**
     * As {@link #start(int, PbftConfig, PbftKeys, Addresses, PeerAddresses, ReplicaConfig, long)}, but, if
     * {@code byzantine} is not null, a Byzantine replica on purpose (<b>testing and demonstration only</b>): its
     * outgoing PBFT envelopes go through a {@link ByzantinePillarNetwork} (seeded with the replica id), or, for
     * {@link ByzantineMode#WRONG_REPLIES}, its replies through {@link ForgedReplies}.
     */
    public static PbftStoreNode start(int replica, PbftConfig config, PbftKeys keys, Addresses bind, PeerAddresses peers,
                                      ReplicaConfig storeConfig, long firstRequestNumber, ByzantineMode byzantine) {
        return start(replica, config, keys, bind, peers, storeConfig, firstRequestNumber, null, byzantine);
    }

    /**
     * As the other {@code start}; with {@code checkpoints} the store's checkpoints are the PBFT checkpoints, the
     * replica resumes from {@code checkpoints.installed()} if given, and asks {@code checkpoints.pbft()}'s listener
     * for state transfer when it falls behind a stable checkpoint.
     *
     * @throws IllegalArgumentException also if {@code config} cannot certify store checkpoints
     *                                  ({@link PbftReplicaNode#checkAppCheckpoints}); the installed store is then
     *                                  closed
     */
    public static PbftStoreNode start(int replica, PbftConfig config, PbftKeys keys, Addresses bind, PeerAddresses peers,
                                      ReplicaConfig storeConfig, long firstRequestNumber, Checkpoints checkpoints) {
        return start(replica, config, keys, bind, peers, storeConfig, firstRequestNumber, checkpoints, null);
    }

    /**
     * The general form: store checkpoints as PBFT checkpoints if {@code checkpoints} is not null (see the overload
     * taking them), and a Byzantine replica on purpose if {@code byzantine} is not null (<b>testing only</b>; see the
     * overload taking it).
     */
    public static PbftStoreNode start(int replica, PbftConfig config, PbftKeys keys, Addresses bind, PeerAddresses peers,
                                      ReplicaConfig storeConfig, long firstRequestNumber, Checkpoints checkpoints,
                                      ByzantineMode byzantine) {
        return start(replica, config, keys, bind, peers, storeConfig, firstRequestNumber, checkpoints, byzantine, false);
    }

    /**
     * As the general form above; {@code dormant}: the Byzantine replica runs as a correct one until {@link #wake()}
     * (<b>testing only</b>: a fault benchmark turns a warm replica Byzantine at one moment).
     */
    public static PbftStoreNode start(int replica, PbftConfig config, PbftKeys keys, Addresses bind, PeerAddresses peers,
                                      ReplicaConfig storeConfig, long firstRequestNumber, Checkpoints checkpoints,
                                      ByzantineMode byzantine, boolean dormant) {
        return start(replica, config, keys, bind, peers, storeConfig, firstRequestNumber, checkpoints, byzantine, dormant,
                LinkSecurity.plain());
    }

    /**
     * As the general form above, every port and link secured by {@code security}: under mutual TLS, pillar ports admit
     * the cluster's nodes only, the proposal and reply ports its nodes and client machines.
     */
    public static PbftStoreNode start(int replica, PbftConfig config, PbftKeys keys, Addresses bind, PeerAddresses peers,
                                      ReplicaConfig storeConfig, long firstRequestNumber, Checkpoints checkpoints,
                                      ByzantineMode byzantine, boolean dormant, LinkSecurity security) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(security, "security");
        if (storeConfig.limits().maxBatchBytes() > config.maxRequestBytes()) {
            throw new IllegalArgumentException("a store batch may take " + storeConfig.limits().maxBatchBytes()
                    + " bytes but PBFT requests are limited to " + config.maxRequestBytes() + " bytes (maxRequestBytes)");
        }
        return new PbftStoreNode(replica, config, Objects.requireNonNull(keys, "keys"), bind,
                Objects.requireNonNull(peers, "peers"), Objects.requireNonNull(storeConfig, "storeConfig"), firstRequestNumber,
                checkpoints, byzantine, dormant, security);
    }

    /** The PBFT replica id, {@code 0..n-1}. */
    public int replica() {
        return replica;
    }

    /** The store replica (id {@code replica + 1}). */
    public Replica store() {
        return store;
    }

    /** The replica's broadcast. */
    public PbftBroadcast broadcast() {
        return broadcast;
    }

    /** Where pillar {@code p} listens. */
    public InetSocketAddress pillarAddress(int p) {
        return transport.localAddress(p);
    }

    /** Where the proposal port listens. */
    public InetSocketAddress proposalAddress() {
        return proposals.localAddress();
    }

    /** Where the reply server listens. */
    public InetSocketAddress replyAddress() {
        return replies.localAddress();
    }

    /** Whether primary(view of pillar 0) is this replica: the replica that sends pillar 0's NEW-VIEWs. */
    public boolean isPrimaryOfPillar0() {
        long view = node.pillars().get(0).view();
        return view >= 0 && view % config.replicaCount() == replica;
    }

    /** How {@link #byzantineSummary} says that the Byzantine mode waits for its cue. */
    public static final String DORMANT = "dormant (runs correctly until cued)";

    /**
     * Ends a dormant Byzantine replica's dormancy: from now on it acts in its mode. Testing only; any thread;
     * idempotent, and nothing for a correct or an awake replica.
     */
    public void wake() {
        if (lyingNetwork != null) {
            lyingNetwork.wake();
        }
        if (forgedReplies != null) {
            forgedReplies.wake();
        }
    }

    /** False while a Byzantine replica is dormant; true otherwise (a correct replica included). */
    public boolean awake() {
        return (lyingNetwork == null || lyingNetwork.awake()) && (forgedReplies == null || forgedReplies.awake());
    }

    /** What this replica does wrong on purpose (testing only), if anything. */
    public Optional<ByzantineMode> byzantine() {
        return Optional.ofNullable(byzantine);
    }

    /**
     * For {@code cluster status}: the Byzantine mode and what it did so far ("BYZANTINE (testing): MODE, ..."), or
     * null for a correct replica.
     */
    public String byzantineSummary() {
        if (byzantine == null) {
            return null;
        }
        if (!awake()) {
            return "BYZANTINE (testing tool): " + byzantine.cliName() + ", " + DORMANT;
        }
        String did = lyingNetwork != null ? "envelopes changed " + lyingNetwork.changed() + ", withheld "
                + lyingNetwork.withheld() + ", added " + lyingNetwork.added() + ", delayed " + lyingNetwork.delayed()
                : "replies forged " + (forgedReplies == null ? 0 : forgedReplies.forged());
        return "BYZANTINE (testing tool): " + byzantine.cliName() + "; " + did;
    }

    /** What stopped the PBFT replica or its store, if anything did. */
    public Optional<Throwable> failure() {
        Optional<Throwable> f = node.failure();
        return f.isPresent() ? f : store.failure();
    }

    /** What each pillar hands to a state transfer's next incarnation ({@link PbftReplicaNode#handover}). */
    public List<PillarHandover> handover() {
        return node.handover();
    }

    /** Views, stable checkpoints and refusal counters now. */
    public Status status() {
        return new Status(node.pillars(), transport.stats(), proposals.refusals());
    }

    /**
     * Closes the proposal port, the store replica, the reply server, the broadcast, the replica, its Byzantine network
     * if any, and its transport.
     */
    @Override
    public void close() {
        proposals.close();
        store.close();
        replies.close();
        broadcast.close();
        node.close();
        if (lyingNetwork != null) {
            lyingNetwork.close();
        }
        transport.close();
    }

    @Override
    public String toString() {
        return "PbftStoreNode[replica " + replica + ", " + broadcast + "]";
    }
}
