package io.psmr.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.psmr.kvstore.HeapKvStore;
import io.psmr.kvstore.ReplicaCheckpointState;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.checkpoint.SnapshottingStore;
import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.kvstore.pbft.PbftReplicaRuntime;
import io.psmr.kvstore.pbft.PbftStateTransfer;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftResumeState;
import io.psmr.ordering.pbft.RequestDeduplicator;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.scheduler.SchedulerMode;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The crash point between fetching a peer's checkpoint and checking its certificate: a fetched checkpoint, newer than
 * the replica's own, lies in {@code data/NAME/uncertified}. A restart of the {@link PbftReplicaRuntime} (one replica of
 * a 4-replica cluster, real key files and ports) must install its own older checkpoint, not the fetched one, and
 * remove the fetched one with a warning naming it. Real files throughout.
 */
class PbftUncertifiedCheckpointRestartTest {

    private static final long OWN = 64;
    private static final long FETCHED = 128;

    @TempDir
    Path dir;

    @Test
    void aRestartInstallsItsOwnCheckpointAndRemovesAnUncertifiedFetchedOne() throws Exception {
        List<Integer> ports = ClusterLauncher.freePorts(4 * 4);
        List<ClusterNode> nodes = new ArrayList<>();
        List<List<Integer>> pillarPorts = new ArrayList<>();
        int p = 0;
        for (int r = 1; r <= 4; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, r, r, ports.get(p++), ports.get(p++), 0, null, null));
            pillarPorts.add(List.of(ports.get(p++), ports.get(p++)));
        }
        ClusterDescriptor cluster = new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, "127.0.0.1",
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10), nodes, List.of(), null,
                new PbftClusterSettings(1, 2, LeaderRotation.FIXED, pillarPorts, 64));
        ClusterDirectory directory = new ClusterDirectory(dir);
        directory.create(cluster);
        PbftKeyFiles.generate(directory.keysDir(), 4, 2, new SecureRandom(), false);
        ClusterDescriptor read = directory.read();
        ClusterNode node = read.node("replica-1").orElseThrow();
        ReplicaConfig rc = read.settings().replicaConfig(1);
        Path data = directory.dataDir(node.name());

        // Its own checkpoint, and the state of the crash point: a newer checkpoint fetched into the staging store,
        // its certificate never checked.
        Checkpoint own = checkpoint(CheckpointStore.open(data, CheckpointStore.DEFAULT_RETAIN), rc, OWN, 10);
        Checkpoint fetched = checkpoint(CheckpointStore.open(data.resolve("uncertified"), 1), rc, FETCHED, 30);
        assertTrue(Files.isDirectory(fetched.directory()), fetched.directory().toString());

        Logger log = (Logger) LoggerFactory.getLogger(PbftStateTransfer.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        try (PbftReplicaRuntime restarted = PbftReplicaRuntime.start(directory, read, node)) {
            NodeStatus first = restarted.status();
            NodeStatus s = restarted.status(); // the idle digest is taken on the second quiet poll
            assertEquals(null, s.failure(), String.valueOf(first));
            assertEquals(OWN, s.instance(), "resumed from its own checkpoint: " + s);
            assertEquals(own.storeDigest(), s.digest(), "the own checkpoint's store is installed: " + s);
        } finally {
            log.detachAppender(lines);
        }
        assertFalse(Files.exists(fetched.directory()), "the uncertified fetched checkpoint is removed");
        assertEquals(List.of(OWN), CheckpointStore.open(data, CheckpointStore.DEFAULT_RETAIN).list(),
                "the replica's own checkpoint is kept");
        List<String> warnings = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertEquals(List.of("replica-1 removes uncertified checkpoint 128 (" + fetched.directory() + "): a state transfer"
                + " fetched it from a peer and stopped before checking its certificate; only the replica's own"
                + " checkpoints and certified ones are installed"), warnings);
    }

    /** A checkpoint at {@code instance} of a store of {@code keys} keys, with the state.bin a PBFT replica writes. */
    private static Checkpoint checkpoint(CheckpointStore into, ReplicaConfig rc, long instance, int keys) throws Exception {
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), rc.store(), 1 << 20)) {
            for (int k = 0; k < keys; k++) {
                store.put(("key-" + k).getBytes(StandardCharsets.UTF_8), ("value-" + instance).getBytes(StandardCharsets.UTF_8));
            }
            return into.take(instance, store, state(rc, instance)).get(30, TimeUnit.SECONDS);
        }
    }

    /** An empty session table and capacity guard, and the PBFT resume state after {@code instance}. */
    private static byte[] state(ReplicaConfig rc, long instance) throws IOException {
        ByteArrayOutputStream sessions = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(sessions)) {
            out.writeInt(rc.replyCacheWindow());
            out.writeInt(rc.maxSessions());
            out.writeLong(rc.sessionTimeoutInstances());
            out.writeInt(0);
        }
        ByteArrayOutputStream capacity = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(capacity)) {
            for (int i = 0; i < 6; i++) {
                out.writeLong(0);
            }
            out.writeBoolean(false);
            out.writeBoolean(false);
        }
        ByteArrayOutputStream dedup = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(dedup)) {
            new RequestDeduplicator(16, 4).writeTo(out);
        }
        byte[] resume = new PbftResumeState(instance + 1, instance + 1, new byte[32], dedup.toByteArray()).toBytes();
        return new ReplicaCheckpointState(instance, sessions.toByteArray(), capacity.toByteArray(), resume).toBytes();
    }
}
