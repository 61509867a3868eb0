package io.psmr.kvstore.cluster;

import io.psmr.kvstore.PbftStoreNode;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PillarSnapshot;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.ordering.pbft.net.PbftTransportStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PBFT replica process: a {@link PbftStoreNode} (the replica's pillars on their ports, its broadcast, the store
 * replica, its reply server and its proposal port) configured from {@code cluster.json}, with the keys of
 * {@code DIR/keys/replica-<id>.keys}.
 *
 * <h2>Start and restart</h2>
 * Before opening any socket it loads its key file ({@link PbftKeyFiles#load}): a missing file, or one readable or
 * writable by group or others, is refused with that call's message (the process then exits non-zero, the message in
 * its log and in {@code cluster start}'s or {@code restart}'s output). There is no state transfer yet: every start
 * begins with an empty store at instance 1, and catches up only from what the other replicas still hold. Once they
 * garbage-collected their log (a stable checkpoint, every {@code K} sequence numbers), the replica's execution stage
 * fail-stops with a message saying state transfer is needed, and the process exits 1. Each start takes a new
 * <em>incarnation</em> number from {@code data/NAME/incarnation}, and numbers its own PBFT clients' requests from
 * {@code incarnation · 2^40 + 1}, above any number an earlier process of this replica used (the others refuse
 * numbers already ordered).
 *
 * <p><b>Digest.</b> Reported only when idle ({@link IdleDigest}), as for the other replicas.
 *
 * <p><b>Threads.</b> {@link #status} and {@link #close} from the node host's thread.
 */
final class PbftReplicaRuntime implements NodeRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(PbftReplicaRuntime.class);
    /** Request numbers each incarnation may use before the next one's range. */
    static final int INCARNATION_SHIFT = 40;

    private final ClusterNode node;
    private final PbftStoreNode pbft;
    private final IdleDigest idle = new IdleDigest();

    private PbftReplicaRuntime(ClusterNode node, PbftStoreNode pbft) {
        this.node = node;
        this.pbft = pbft;
    }

    /**
     * Loads the replica's keys and starts it.
     *
     * @throws IllegalArgumentException with {@link PbftKeyFiles#load}'s message if its key file is refused
     */
    static PbftReplicaRuntime start(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        PbftClusterSettings s = cluster.pbft();
        PbftConfig config = s.config();
        int r = node.replicaId() - 1;
        PbftKeys keys;
        try {
            keys = PbftKeyFiles.load(dir.keysDir(), r, s.replicas(), s.pillars());
        } catch (IOException e) {
            throw new IllegalArgumentException(node.name() + " refuses to start: " + e.getMessage(), e);
        }
        Path data = dir.dataDir(node.name());
        long incarnation = nextIncarnation(data);
        Path storeFile = data.resolve("store.cm");
        try {
            Files.deleteIfExists(storeFile); // no state transfer: every start begins empty at instance 1
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + storeFile, e);
        }
        ReplicaConfig rc = cluster.settings().replicaConfig(node.replicaId());
        rc = rc.toBuilder().store(rc.store().persistedTo(storeFile)).build();
        List<InetSocketAddress> pillars = new ArrayList<>();
        for (int p = 0; p < s.pillars(); p++) {
            pillars.add(cluster.pillarAddress(r, p));
        }
        PbftStoreNode pbft = PbftStoreNode.start(r, config, keys, new PbftStoreNode.Addresses(pillars,
                        new InetSocketAddress(cluster.host(), node.port()), new InetSocketAddress(cluster.host(), node.replyPort())),
                cluster::pillarAddress, rc, (incarnation << INCARNATION_SHIFT) + 1,
                s.byzantineMode(node.name()).orElse(null));
        s.byzantineMode(node.name()).ifPresent(m -> LOG.warn("{}: BYZANTINE ON PURPOSE ({}: {}); a testing and demonstration"
                + " tool, never for production", node.name(), m.cliName(), m.description()));
        LOG.info("{}: PBFT replica {} of {} ({} pillars, {} leaders), incarnation {}, pillar ports {}, starting empty at"
                + " instance 1 (no state transfer)", node.name(), r, s.replicas(), s.pillars(), s.rotation(), incarnation,
                s.pillarPorts().get(r));
        return new PbftReplicaRuntime(node, pbft);
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
    public NodeStatus status() throws InterruptedException {
        Replica replica = pbft.store();
        ReplicaStats before = replica.stats();
        long batches = before.batchesDelivered();
        long instance = before.lastInstance();
        Long digest = idle.poll(batches, instance, () -> replica.awaitApplied(instance, 1, TimeUnit.SECONDS),
                replica::digest, () -> {
                    ReplicaStats after = replica.stats();
                    return after.batchesDelivered() == batches && after.lastInstance() == instance;
                });
        String failure = pbft.failure().map(Throwable::getMessage).orElse(null);
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), replica.isServing() && failure == null,
                pbft.isPrimaryOfPillar0(), idle.instance(instance), digest, failure, System.currentTimeMillis(),
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
                    .append(p.lowWatermark()).append(", core refusals ").append(new TreeMap<>(p.refusals()))
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

    @Override
    public void close() {
        pbft.close();
    }
}
