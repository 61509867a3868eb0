package io.psmr.kvstore.cluster;

import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.kvstore.pbft.PbftReplicaRuntime;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PbftReplicaRuntime} takes a replica's Byzantine mode from cluster.json at every start (so {@code cluster
 * restart} keeps it) and says so first in its status detail; a correct replica's detail says nothing of it. In one
 * JVM, two replicas of a 4-replica cluster, real ports and key files.
 */
class PbftByzantineRuntimeTest {

    @TempDir
    Path dir;

    /** Four replicas on free loopback ports, two pillars each. */
    record Layout(List<ClusterNode> nodes, List<List<Integer>> pillarPorts) {
        ClusterDescriptor cluster(PbftClusterSettings pbft) {
            return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, "127.0.0.1",
                    new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10), nodes, List.of(), null, pbft);
        }
    }

    static Layout layout() {
        List<Integer> ports = ClusterLauncher.freePorts(4 * 4);
        List<ClusterNode> nodes = new ArrayList<>();
        List<List<Integer>> pillarPorts = new ArrayList<>();
        int p = 0;
        for (int r = 1; r <= 4; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, r, r, ports.get(p++), ports.get(p++), 0, null, null));
            pillarPorts.add(List.of(ports.get(p++), ports.get(p++)));
        }
        return new Layout(nodes, pillarPorts);
    }

    @Test
    void theModeInClusterJsonIsAppliedAndShownAtEachStart() throws Exception {
        Layout l = layout();
        ClusterDescriptor cluster = l.cluster(new PbftClusterSettings(1, 2, LeaderRotation.FIXED, l.pillarPorts(),
                Map.of("replica-1", ByzantineMode.WRONG_REPLIES)));
        ClusterDirectory directory = new ClusterDirectory(dir);
        directory.create(cluster);
        PbftKeyFiles.generate(directory.keysDir(), 4, 2, new SecureRandom(), false);
        ClusterDescriptor read = directory.read();
        for (int start = 1; start <= 2; start++) { // a second start, as a restart does
            try (PbftReplicaRuntime liar = PbftReplicaRuntime.start(directory, read, read.node("replica-1").orElseThrow());
                 PbftReplicaRuntime honest = PbftReplicaRuntime.start(directory, read, read.node("replica-2").orElseThrow())) {
                NodeStatus s = liar.status();
                assertTrue(s.detail().startsWith("BYZANTINE (testing tool): wrong-replies; replies forged 0\npillar 0: view 0"),
                        "start " + start + ": " + s.detail());
                NodeStatus h = honest.status();
                assertFalse(h.detail().contains("BYZANTINE"), h.detail());
                assertEquals("replica-2", h.name());
            }
        }
    }

    /**
     * A dormant Byzantine replica ({@code pbft.dormant}) says so and forges nothing until its cue file appears; at the
     * next status poll it acts in its mode, and cluster.json's copy without the dormancy is what a restart reads.
     */
    @Test
    void aDormantReplicaActsInItsModeFromItsCueOn() throws Exception {
        Layout l = layout();
        PbftClusterSettings pbft = new PbftClusterSettings(1, 2, LeaderRotation.FIXED, l.pillarPorts(),
                PbftClusterSettings.DEFAULT_CHECKPOINT_INTERVAL, Map.of("replica-1", ByzantineMode.WRONG_REPLIES),
                io.psmr.ordering.pbft.LeaderSelection.BLACKLIST, java.util.Set.of("replica-1"));
        ClusterDescriptor cluster = l.cluster(pbft);
        ClusterDirectory directory = new ClusterDirectory(dir);
        directory.create(cluster);
        PbftKeyFiles.generate(directory.keysDir(), 4, 2, new SecureRandom(), false);
        ClusterDescriptor read = directory.read();
        assertTrue(read.pbft().isDormant("replica-1"), "cluster.json keeps the dormancy: " + read.pbft());
        try (PbftReplicaRuntime liar = PbftReplicaRuntime.start(directory, read, read.node("replica-1").orElseThrow())) {
            String dormant = liar.status().detail();
            assertTrue(dormant.startsWith("BYZANTINE (testing tool): wrong-replies, dormant (runs correctly until cued)\n"),
                    dormant);
            java.nio.file.Files.createDirectories(directory.byzantineCue("replica-1").getParent());
            java.nio.file.Files.writeString(directory.byzantineCue("replica-1"), "wrong-replies\n");
            String awake = liar.status().detail();
            assertTrue(awake.startsWith("BYZANTINE (testing tool): wrong-replies; replies forged 0\npillar 0: view 0"), awake);
        }
        PbftClusterSettings after = read.withByzantineAwake("replica-1").pbft();
        assertFalse(after.isDormant("replica-1"));
        assertEquals(Map.of("replica-1", ByzantineMode.WRONG_REPLIES), after.byzantine());
    }
}
