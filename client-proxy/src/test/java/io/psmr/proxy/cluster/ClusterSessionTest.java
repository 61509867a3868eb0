package io.psmr.proxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A load process's identity in a cluster: new session numbers, exclusive proposer slots. */
class ClusterSessionTest {

    @TempDir
    Path dir;

    /** Three acceptors, one replica and two proposer slots: what a session claims a slot of. */
    static ClusterDescriptor sample() {
        List<ClusterNode> nodes = new ArrayList<>();
        for (int a = 0; a < 3; a++) {
            nodes.add(new ClusterNode("acceptor-" + a, NodeRole.ACCEPTOR, a, 0, 41000 + a, 0, 0, null, null));
        }
        nodes.add(new ClusterNode("replica-1", NodeRole.REPLICA, ClusterDescriptor.LEARNER_BASE, 1, 41003, 41004, 0, null, null));
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RING_PAXOS, "127.0.0.1",
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10), nodes,
                List.of(new ProposerSlot(ClusterDescriptor.PROPOSER_BASE, 41005),
                        new ProposerSlot(ClusterDescriptor.PROPOSER_BASE + 1, 41006)), null);
    }

    @Test
    void sessionsAreNewAndSlotsExclusive() {
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor c = sample();
        cd.create(c);
        try (ClusterSession a = ClusterSession.open(cd, c); ClusterSession b = ClusterSession.open(cd, c)) {
            assertNotEquals(a.slot(), b.slot());
            assertEquals(a.session() + 1, b.session());
            assertTrue(b.firstProposalSeq() > a.firstProposalSeq() + Integer.MAX_VALUE);
            assertEquals(b.session(), b.proxyId());
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> ClusterSession.open(cd, c));
            assertTrue(full.getMessage().contains("all 2 proposer slots"), full.getMessage());
        }
        try (ClusterSession again = ClusterSession.open(cd, c)) {
            assertEquals(200, again.slot().paxosId()); // released on close
            assertEquals(4, again.session()); // the refused open also took a number: numbers are never reused
        }
    }

    @Test
    void aRatisClusterNeedsNoProposerSlot() {
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor c = new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RATIS, "127.0.0.1",
                new ClusterSettings(SchedulerMode.KEYS_HASHED, 1, 100, 8, 10),
                List.of(new ClusterNode("replica-1", NodeRole.REPLICA, 1, 1, 42001, 0, 0, null, null),
                        new ClusterNode("replica-2", NodeRole.REPLICA, 2, 2, 42002, 0, 0, null, null)),
                List.of(), UUID.randomUUID().toString());
        cd.create(c);
        try (ClusterSession s = ClusterSession.open(cd, c)) {
            assertEquals(null, s.slot());
            assertEquals(1, s.proxyId());
        }
    }
}
