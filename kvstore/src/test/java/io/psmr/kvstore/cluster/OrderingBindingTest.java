package io.psmr.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.scheduler.SchedulerMode;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderingBindingTest {

    private static final ClusterSettings SETTINGS = new ClusterSettings(SchedulerMode.KEYS_HASHED, 1, 100, 8, 10);

    @Test
    void everyReplicatedProtocolHasOneBindingAndTheInJvmOnesNone() {
        for (OrderingProtocol p : OrderingProtocol.values()) {
            if (p == OrderingProtocol.LOCAL || p == OrderingProtocol.MLBFT) {
                assertTrue(OrderingBinding.find(p).isEmpty());
                assertEquals("a cluster of processes needs a replicated ordering (ringpaxos, ratis or pbft), not "
                        + p.cliName(), assertThrows(IllegalArgumentException.class, () -> OrderingBinding.of(p)).getMessage());
            } else {
                assertEquals(p, OrderingBinding.of(p).protocol());
            }
        }
    }

    @Test
    void aLayoutTakesExactlyThePortsItCountsAndOnlyItsOwnProtocolsNodes() {
        List<ClusterSpec> specs = List.of(ClusterSpec.ringPaxos(3, 2, SETTINGS), ClusterSpec.ratis(3, SETTINGS),
                ClusterSpec.pbft(4, 2, LeaderRotation.FIXED, SETTINGS),
                ClusterSpec.ringPaxos(5, 3, SETTINGS).withHosts(List.of("127.0.0.2", "127.0.0.3")));
        for (ClusterSpec spec : specs) {
            int[] next = {30000};
            ClusterDescriptor c = spec.layout(() -> next[0]++);
            assertEquals(spec.portCount(), next[0] - 30000, spec.ordering().cliName());
            assertEquals(spec.ordering(), c.ordering());
            assertEquals(spec.replicas(), c.replicas().size());
            assertEquals(c.binding().leaderRole() == NodeRole.ACCEPTOR ? spec.acceptors() : 0, c.acceptors().size());
            assertEquals(spec.hosts().get(0), c.replicas().get(0).host());
        }
    }

    @Test
    void pbftRefusesAReplicaCountOtherThanThreeFPlusOne() {
        OrderingBinding pbft = OrderingBinding.of(OrderingProtocol.PBFT);
        assertEquals("a PBFT cluster has 3f+1 replicas (4, 7, 10, ...), got 5", assertThrows(IllegalArgumentException.class,
                () -> pbft.checkSpec(ClusterSpec.pbft(5, 2, LeaderRotation.FIXED, SETTINGS))).getMessage());
        assertTrue(pbft.replicaCountProblem(7).isEmpty());
        assertEquals("of a pbft cluster must be 3f+1 (4, 7, 10, ... 64), got 6", pbft.replicaCountProblem(6).orElseThrow());
    }
}
