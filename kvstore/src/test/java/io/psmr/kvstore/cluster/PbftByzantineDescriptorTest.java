package io.psmr.kvstore.cluster;

import io.psmr.kvstore.pbft.PbftClusterSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pbft.byzantine} in cluster.json: written by CLI name, read back, left out when empty, checked. */
class PbftByzantineDescriptorTest {

    static List<List<Integer>> ports() {
        List<List<Integer>> ports = new ArrayList<>();
        for (int r = 1; r <= 4; r++) {
            ports.add(List.of(32000 + 10 * r, 32001 + 10 * r));
        }
        return ports;
    }

    static ClusterDescriptor cluster(PbftClusterSettings pbft) {
        List<ClusterNode> nodes = new ArrayList<>();
        for (int r = 1; r <= 4; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, r, r, 30000 + r, 31000 + r, 0, null, null));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, "127.0.0.1",
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 64, 10), nodes, List.of(), null, pbft);
    }

    @Test
    void aByzantineReplicaRoundTripsByItsCliName(@TempDir Path dir) throws Exception {
        ClusterDescriptor c = cluster(new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports(),
                Map.of("replica-3", ByzantineMode.EQUIVOCATING_LEADER)));
        c.write(dir);
        assertTrue(Files.readString(dir.resolve("cluster.json")).contains("\"replica-3\" : \"equivocating-leader\""),
                Files.readString(dir.resolve("cluster.json")));
        ClusterDescriptor read = ClusterDescriptor.read(dir);
        assertEquals(c, read);
        assertEquals(Optional.of(ByzantineMode.EQUIVOCATING_LEADER), read.pbft().byzantineMode("replica-3"));
        assertEquals(Optional.empty(), read.pbft().byzantineMode("replica-1"));
    }

    @Test
    void aCorrectClusterHasNoByzantineField(@TempDir Path dir) throws Exception {
        cluster(new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports())).write(dir);
        assertFalse(Files.readString(dir.resolve("cluster.json")).contains("byzantine"));
        assertEquals(Map.of(), ClusterDescriptor.read(dir).pbft().byzantine());
    }

    @Test
    void badByzantineEntriesAreRefusedByName(@TempDir Path dir) throws Exception {
        assertEquals("pbft.byzantine names 2 replicas; f = 1 tolerates at most 1", assertThrows(IllegalArgumentException.class,
                () -> new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports(), Map.of("replica-1", ByzantineMode.SILENT,
                        "replica-2", ByzantineMode.SILENT))).getMessage());
        assertEquals("pbft.byzantine: no replica 'replica-5' (replica-1 to replica-4)", assertThrows(IllegalArgumentException.class,
                () -> new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports(), Map.of("replica-5", ByzantineMode.SILENT)))
                .getMessage());
        cluster(new PbftClusterSettings(1, 2, LeaderRotation.FIXED, ports(), Map.of("replica-2", ByzantineMode.SILENT))).write(dir);
        Path file = dir.resolve("cluster.json");
        Files.writeString(file, Files.readString(file).replace("\"silent\"", "\"evil\""));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterDescriptor.read(dir));
        assertTrue(e.getMessage().contains("unknown Byzantine mode 'evil'; the modes are silent, equivocating-leader"), e.getMessage());
    }
}
