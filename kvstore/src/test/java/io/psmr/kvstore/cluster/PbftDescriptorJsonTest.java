package io.psmr.kvstore.cluster;

import io.psmr.kvstore.pbft.PbftClusterSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.LeaderSelection;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A PBFT cluster.json round-trips with its pbft settings. */
class PbftDescriptorJsonTest {
    @Test
    void roundTrips(@TempDir Path dir) {
        List<ClusterNode> nodes = new ArrayList<>();
        List<List<Integer>> ports = new ArrayList<>();
        for (int r = 1; r <= 4; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, r, r, 30000 + r, 31000 + r, 0, null, null));
            ports.add(List.of(32000 + 10 * r, 32001 + 10 * r));
        }
        ClusterDescriptor c = new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, "127.0.0.1",
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 64, 10), nodes, List.of(), null,
                new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports));
        c.write(dir);
        assertEquals(c, ClusterDescriptor.read(dir));
        assertEquals(LeaderSelection.BLACKLIST, ClusterDescriptor.read(dir).pbft().leaderSelection());
        ClusterDescriptor all = new ClusterDescriptor(c.version(), c.ordering(), c.host(), c.settings(), c.nodes(),
                c.proposers(), null, new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports, 512, java.util.Map.of(),
                LeaderSelection.ALL_REPLICAS));
        all.write(dir);
        assertEquals(LeaderSelection.ALL_REPLICAS, ClusterDescriptor.read(dir).pbft().leaderSelection());
        assertEquals(LeaderSelection.ALL_REPLICAS, ClusterDescriptor.read(dir).pbft().config().leaderSelection());
    }

    /** A cluster.json written before leader selection existed reads as blacklisting. */
    @Test
    void anAbsentLeaderSelectionIsBlacklist(@TempDir Path dir) throws java.io.IOException {
        List<ClusterNode> nodes = new ArrayList<>();
        List<List<Integer>> ports = new ArrayList<>();
        for (int r = 1; r <= 4; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, r, r, 30000 + r, 31000 + r, 0, null, null));
            ports.add(List.of(32000 + 10 * r, 32001 + 10 * r));
        }
        new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, "127.0.0.1",
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 64, 10), nodes, List.of(), null,
                new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports)).write(dir);
        Path file = dir.resolve(ClusterDescriptor.FILE);
        String json = java.nio.file.Files.readString(file);
        String old = json.replaceAll(",\\s*\"leaderSelection\"\\s*:\\s*\"BLACKLIST\"", "");
        org.junit.jupiter.api.Assertions.assertNotEquals(json, old, "the file names its leader selection");
        java.nio.file.Files.writeString(file, old);
        assertEquals(LeaderSelection.BLACKLIST, ClusterDescriptor.read(dir).pbft().leaderSelection());
    }
}
