package io.psmr.kvstore.pbft;

import io.psmr.kvstore.Checkpointing;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointInstaller;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.cluster.CheckpointedReplicaRuntime;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterTlsFiles;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.pbft.FailoverRehearsal;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PillarHandover;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.pbft.PillarSnapshot;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.ordering.pbft.net.PbftTransportStats;
import io.psmr.ordering.transport.LinkSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PBFT replica process: a {@link PbftStoreNode} (the replica's pillars on their ports, its broadcast, the store
 * replica, its reply server and its proposal port) configured from {@code cluster.json}, with the keys of
 * {@code DIR/keys/replica-<id>.keys}.
 *
 * <h2>Checkpoints and state transfer</h2>
 * The store checkpoints every {@code pbft.checkpointInterval} delivered instances into {@code data/NAME/checkpoints}
 * (never skipping one), and each checkpoint is the PBFT checkpoint at the sequence number that delivered its
 * instance ({@link PbftCheckpoints}); the replica serves them on its checkpoint port ({@link io.psmr.kvstore.checkpoint.CheckpointServer}). When a
 * stable checkpoint leaves it behind (its log below is gone at the others), the execution stage freezes and this
 * runtime fetches a checkpoint from the other replicas into {@code data/NAME/uncertified} ({@link PbftStateTransfer}:
 * moved into the checkpoint store and installed only if its recomputed digest is the one 2f+1 replicas certified; a
 * mismatching peer is named and the next tried), closes the stale
 * incarnation, and starts a new one resumed from it, its pillars adopting the stable checkpoint; it logs
 * {@code caught up by state transfer: installed checkpoint C in M ms}. Meanwhile its status says not serving.
 *
 * <h2>Start and restart</h2>
 * Before opening any socket it loads its key file ({@link PbftKeyFiles#load}): a missing file, or one readable or
 * writable by group or others, is refused with that call's message (the process then exits non-zero, the message in
 * its log and in {@code cluster start}'s or {@code restart}'s output). A restart deletes any uncertified fetched
 * checkpoint a stopped state transfer left, naming it, installs the newest intact local checkpoint (its own or a
 * certified one; or starts empty at instance 1 without one), votes for that checkpoint again (so that a cluster resumed
 * whole from one checkpoint makes it stable and orders on after it), and goes on from the log, or by state transfer if the
 * others moved past it. Each incarnation (process start or state transfer) takes a new number from
 * {@code data/NAME/incarnation}, and numbers its own PBFT clients' requests from {@code incarnation · 2^40 + 1},
 * above any number an earlier one used (the others refuse numbers already ordered).
 *
 * <p>Checkpoints, incarnations, status and meters are {@link CheckpointedReplicaRuntime}'s.
 *
 * <p><b>Threads.</b> {@link #status} and {@link #close} from the node host's thread; state transfer runs on this
 * runtime's recovery thread; {@link #transferNeeded} on the execution agent's thread (it only hands over).
 */
public final class PbftReplicaRuntime extends CheckpointedReplicaRuntime<PbftStoreNode> {

    private static final Logger LOG = LoggerFactory.getLogger(PbftReplicaRuntime.class);
    /** Request numbers each incarnation may use before the next one's range. */
    static final int INCARNATION_SHIFT = 40;
    private static final long RETRY_MILLIS = 200;
    /** Stable checkpoints remembered for state transfer (the newest). */
    private static final int MAX_CERTIFIED = 16;
    /** How long a failover rehearsal may run (about 1 s alone, 2 to 10 s on 2 cores as four replicas start). */
    private static final Duration REHEARSAL_LIMIT = Duration.ofSeconds(10);
    private static final AtomicBoolean REHEARSED = new AtomicBoolean();

    private final PbftClusterSettings settings;
    private final PbftConfig config;
    private final PbftKeys keys;
    private final int replica;
    private final Path storeFile;
    private final ReplicaConfig storeConfig;
    private final CheckpointStore uncertified;
    private final ConcurrentSkipListMap<Long, StableCheckpoint> certified = new ConcurrentSkipListMap<>();
    private final AtomicBoolean catchingUp = new AtomicBoolean();
    /** Testing only: the file whose appearance wakes a dormant Byzantine replica ({@link ClusterDirectory#byzantineCue}). */
    private final Path cue;
    /** Set once the cue was seen: every incarnation from then on is awake. */
    private volatile boolean cued;

    private PbftReplicaRuntime(ClusterDescriptor cluster, ClusterNode node, PbftKeys keys, Path data,
                               CheckpointStore checkpoints, CheckpointStore uncertified, Path cue, LinkSecurity security) {
        super(cluster, node, data, checkpoints, "psmr-pbft-catch-up", security);
        this.cue = cue;
        this.uncertified = uncertified;
        this.settings = cluster.pbft();
        this.config = settings.config();
        this.keys = keys;
        this.replica = node.replicaId() - 1;
        this.storeFile = data.resolve("store.cm");
        ReplicaConfig rc = cluster.settings().replicaConfig(node.replicaId());
        this.storeConfig = rc.toBuilder().store(rc.store().persistedTo(storeFile)).build();
    }

    /**
     * Loads the replica's keys, empties its staging store of uncertified fetched checkpoints ({@link
     * PbftStateTransfer#openStaging}) and starts it from its newest intact local checkpoint, or empty.
     *
     * @throws IllegalArgumentException with {@link PbftKeyFiles#load}'s message if its key file is refused
     */
    public static PbftReplicaRuntime start(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        PbftClusterSettings s = cluster.pbft();
        int r = node.replicaId() - 1;
        PbftKeys keys;
        try {
            keys = PbftKeyFiles.load(dir.keysDir(), r, s.replicas(), s.pillars());
        } catch (IOException e) {
            throw new IllegalArgumentException(node.name() + " refuses to start: " + e.getMessage(), e);
        }
        Path data = dir.dataDir(node.name());
        try {
            Files.createDirectories(data);
            CheckpointStore checkpoints = CheckpointStore.open(data, CheckpointStore.DEFAULT_RETAIN); // data/NAME/checkpoints
            // Emptied before the first incarnation: a restart never installs a checkpoint whose certificate is unchecked.
            CheckpointStore uncertified = PbftStateTransfer.openStaging(data, node.name());
            PbftReplicaRuntime rt = new PbftReplicaRuntime(cluster, node, keys, data, checkpoints, uncertified,
                    dir.byzantineCue(node.name()), ClusterTlsFiles.forNode(dir.path(), cluster, node));
            rt.open();
            return rt;
        } catch (IOException e) {
            throw new UncheckedIOException(node.name() + " cannot start: " + e.getMessage(), e);
        }
    }

    /**
     * Rehearses a failover in a throwaway in-memory cluster of this one's shape before a replica that starts empty
     * serves, once per process ({@link FailoverRehearsal}: the JIT then keeps the view-change paths in the hot message
     * handlers). Before, not beside: a rehearsal that shares the cores with the first seconds of load slows the
     * replicas enough to suspect correct leaders. Not for a replica that resumes from a checkpoint: it restarts into a
     * running cluster, whose live replicas would lose the rehearsal's CPU while they carry its share of every quorum.
     */
    private void rehearse() {
        if (!REHEARSED.compareAndSet(false, true)) {
            return;
        }
        FailoverRehearsal.Outcome o = FailoverRehearsal.run(config, REHEARSAL_LIMIT);
        if (o.completed()) {
            LOG.info("{}: rehearsed a failover in memory ({} requests ordered, a crash, every pillar through a view"
                    + " change) in {} ms", node.name(), o.delivered(), o.tookNanos() / 1_000_000);
        } else {
            LOG.warn("{}: the failover rehearsal ended early ({}); the first real view change may deoptimise the"
                    + " message handlers", node.name(), o.failure());
        }
    }

    /** Only a checkpoint that holds a PBFT state. */
    @Override
    protected void checkUsable(Checkpoint checkpoint) throws IOException {
        PbftCheckpoints.certification(checkpoint);
    }

    @Override
    protected PbftStoreNode startFrom(Checkpoint checkpoint) throws IOException {
        return startIncarnation(checkpoint, null, List.of());
    }

    /**
     * Starts a replica from {@code checkpoint} (installed into the store file), or empty from instance 1 if null;
     * {@code adopt} is the stable checkpoint that certified a transferred one, and {@code handover} what each pillar of
     * the incarnation it replaces hands over (the highest view it entered, the views it saw the others in).
     */
    private PbftStoreNode startIncarnation(Checkpoint checkpoint, StableCheckpoint adopt, List<PillarHandover> handover)
            throws IOException {
        long incarnation = nextIncarnation(data);
        InstalledCheckpoint installed = null;
        if (checkpoint != null) {
            installed = CheckpointInstaller.install(checkpoint, storeConfig.store(), true);
        } else {
            Files.deleteIfExists(storeFile); // the file holds no state of its own: only a checkpoint is trusted
            rehearse();
        }
        int interval = settings.checkpointInterval();
        PbftCheckpoints bridge = new PbftCheckpoints(interval, PbftStoreNode.RETAINED_INSTANCES / interval + 4,
                checkpoints, this::transferNeeded);
        if (checkpoint != null && adopt == null) {
            // Resumed from its own checkpoint, whose certificate it does not keep: vote for it again (CHECKPOINT at its
            // sequence number). When the whole cluster resumed from the same checkpoint, 2f+1 such votes make it stable
            // again, and the pillars order from the sequence number after it; without them the pillars would start at
            // 1 while execution waits above the checkpoint. Alone among running replicas, the others ignore the vote.
            bridge.checkpointed(checkpoint.instance());
        }
        List<InetSocketAddress> pillars = new ArrayList<>();
        for (int p = 0; p < settings.pillars(); p++) {
            pillars.add(cluster.pillarAddress(replica, p));
        }
        PbftStoreNode n = PbftStoreNode.start(replica, config, keys, new PbftStoreNode.Addresses(pillars,
                        node.address(node.port()), node.address(node.replyPort())),
                cluster::pillarAddress, storeConfig, (incarnation << INCARNATION_SHIFT) + 1,
                new PbftStoreNode.Checkpoints(Checkpointing.every(interval, checkpoints, bridge), bridge, installed, adopt,
                        handover),
                settings.byzantineMode(node.name()).orElse(null), dormant(), security);
        settings.byzantineMode(node.name()).ifPresent(m -> LOG.warn("{}: BYZANTINE ON PURPOSE ({}: {}){}; a testing and"
                + " demonstration tool, never for production", node.name(), m.cliName(), m.description(),
                dormant() ? ", " + PbftStoreNode.DORMANT : ""));
        LOG.info("{}: PBFT replica {} of {} ({} pillars, {} leaders), incarnation {}, pillar ports {}, checkpoint every {}"
                        + " instances, {}", node.name(), replica, settings.replicas(), settings.pillars(), settings.rotation(),
                incarnation, settings.pillarPorts().get(replica), interval, installed == null ? "starting empty at instance 1"
                        : "resumed from checkpoint " + installed.instance() + (adopt == null ? " (its own)"
                        : " (certified at sequence number " + adopt.seq() + "; leads no instance up to "
                        + (adopt.seq() + config.watermarkWindow()) + (handover.isEmpty() ? ")"
                        : " in views up to " + handover.stream().map(PillarHandover::highestViewEntered).toList()
                        + " per pillar, those the incarnation it replaces entered; joins the views it saw the others in: "
                        + handover.stream().map(h -> Arrays.toString(h.viewsSeen())).toList() + ")")));
        return n;
    }

    /**
     * A stable checkpoint left this replica behind (execution agent's thread: hands over, never blocks). The first
     * call starts a catch-up on the recovery thread; later ones add newer certificates it can match against.
     */
    private void transferNeeded(StableCheckpoint stable) {
        certified.put(stable.seq(), stable);
        while (certified.size() > MAX_CERTIFIED) {
            certified.pollFirstEntry();
        }
        if (catchingUp.compareAndSet(false, true)) {
            LOG.warn("{} fell behind: checkpoint {} became stable above what it executed, and the others discarded"
                    + " their log below it; fetching a certified checkpoint from {}", node.name(), stable.seq(),
                    cluster.checkpointPeers(node));
            runCatchUp(this::catchUp);
        }
    }

    /** Fetches a certified checkpoint and replaces the stale incarnation by one resumed from it. Recovery thread. */
    private void catchUp() {
        long started = System.nanoTime();
        PbftStoreNode stale;
        try {
            // A replica can fall behind while its incarnation is still starting (the others' first frames already
            // carry a stable checkpoint): wait until the start has handed it over.
            stale = awaitIncarnation();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (stale == null) {
            return;
        }
        long have = stale.store().stats().lastInstance();
        List<InetSocketAddress> peers = cluster.checkpointPeers(node);
        boolean retired = false;
        List<PillarHandover> handover = List.of();
        try (CheckpointFetcher fetcher = newFetcher(uncertified)) {
            PbftStateTransfer transfer = new PbftStateTransfer(fetcher, uncertified, checkpoints);
            long attempts = 0;
            while (!isClosed()) {
                try {
                    // The stale incarnation keeps running meanwhile: its pillars collect newer stable checkpoints.
                    PbftStateTransfer.Verified v = transfer.fetch(peers, have + 1, certified::get);
                    if (!retired) { // not serving until the new incarnation runs
                        if (!retire(stale)) {
                            return;
                        }
                        stale.close();
                        handover = stale.handover();
                        retired = true;
                    }
                    if (!install(startIncarnation(v.checkpoint(), v.certificate(), handover))) {
                        return;
                    }
                    certified.headMap(v.certificate().seq(), true).clear();
                    catchingUp.set(false);
                    if (!certified.isEmpty() && catchingUp.compareAndSet(false, true)) {
                        runCatchUp(this::catchUp); // the new incarnation is behind a newer one already
                    }
                    LOG.info("{} caught up by state transfer: installed checkpoint {} in {} ms (from {}, sequence number {},"
                                    + " digest certified by {} replicas, {} bytes of store)", node.name(),
                            v.checkpoint().instance(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                            v.peer(), v.certificate().seq(), v.certificate().proof().size(),
                            v.checkpoint().manifest().storeLength());
                    return;
                } catch (IOException | RuntimeException e) {
                    if (Long.bitCount(++attempts) == 1) { // 1st, 2nd, 4th, ...: a waiting replica must not flood its log
                        LOG.warn("{} cannot install a certified checkpoint yet (attempt {}): {}; retrying every {} ms",
                                node.name(), attempts, e.getMessage(), RETRY_MILLIS);
                    }
                }
                Thread.sleep(RETRY_MILLIS); // a pause between rounds of peers (certificates arrive meanwhile)
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads, increments and writes {@code data/incarnation} (0 at the first start). */
    private static long nextIncarnation(Path data) {
        Path file = data.resolve("incarnation");
        try {
            Files.createDirectories(data);
            long n = Files.exists(file) ? Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim()) + 1 : 0;
            if (n >= (1L << (63 - INCARNATION_SHIFT))) {
                throw new IllegalStateException(file + " says " + n + " incarnations; no request numbers are left");
            }
            Path tmp = data.resolve("incarnation.tmp");
            Files.writeString(tmp, n + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot update " + file, e);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + " does not hold a number: " + e.getMessage(), e);
        }
    }

    @Override
    protected io.psmr.kvstore.Replica replicaOf(PbftStoreNode incarnation) {
        return incarnation.store();
    }

    @Override
    protected void closeIncarnation(PbftStoreNode incarnation) {
        incarnation.close();
    }

    @Override
    protected boolean catchingUp() {
        return catchingUp.get();
    }

    @Override
    protected String catchingUpDetail() {
        return "catching up by state transfer";
    }

    /** Whether this replica is Byzantine but still waits for its cue. */
    private boolean dormant() {
        return settings.isDormant(node.name()) && !cued;
    }

    /**
     * Wakes a dormant Byzantine replica once its cue file appears. It rides on the node host's status poll (every
     * {@code NodeHost.POLL_MILLIS} ms), so the mode acts within one poll of the cue. Node host's thread.
     */
    private void wakeIfCued(PbftStoreNode pbft) {
        if (!settings.isDormant(node.name())) {
            return;
        }
        if (!cued && Files.exists(cue)) {
            cued = true;
            LOG.warn("{}: cued: BYZANTINE from now on ({})", node.name(),
                    settings.byzantineMode(node.name()).map(m -> m.cliName()).orElse("?"));
        }
        if (cued) {
            pbft.wake(); // idempotent; also the incarnation a state transfer started
        }
    }

    @Override
    protected NodeStatus statusOf(PbftStoreNode pbft) throws InterruptedException {
        wakeIfCued(pbft);
        DigestPoll poll = pollDigest(pbft.store());
        String failure = pbft.failure().map(Throwable::getMessage).orElse(null);
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), pbft.store().isServing() && failure == null,
                pbft.isPrimaryOfPillar0(), poll.instance(), poll.digest(), failure, System.currentTimeMillis(),
                byzantine(pbft.byzantineSummary(), detail(pbft.status())));
    }

    /** The detail with a first line naming the Byzantine mode (testing only), if the replica has one. */
    static String byzantine(String summary, String detail) {
        return summary == null ? detail : summary + "\n" + detail;
    }

    /** Per pillar: view, h, core refusals; then transport refusals and drops, and proposal-port refusals. */
    static String detail(PbftStoreNode.Status s) {
        StringBuilder b = new StringBuilder();
        for (PillarSnapshot p : s.pillars()) {
            b.append("pillar ").append(p.pillar()).append(": view ").append(p.view()).append(", stable checkpoint ")
                    .append(p.lowWatermark());
            p.excluded().forEach((replica, through) -> b.append(", replica-").append(replica + 1)
                    .append(" kept from leading through instance ").append(through));
            b.append(", core refusals ").append(new TreeMap<>(p.refusals()))
                    .append(", malformed ").append(p.malformed()).append('\n');
        }
        PbftTransportStats t = s.transport();
        b.append("transport refusals ").append(nonZero(t.refusals())).append(", drops ").append(nonZero(t.drops()))
                .append(", connections out ").append(t.outbound()).append(" in ").append(t.inbound()).append('\n');
        b.append("proposal port refusals ").append(nonZero(s.proposalRefusals()));
        return b.toString();
    }

    private static Map<String, Long> nonZero(Map<?, Long> counters) {
        Map<String, Long> m = new TreeMap<>();
        counters.forEach((k, v) -> {
            if (v != 0) {
                m.put(String.valueOf(k), v);
            }
        });
        return m;
    }
}
