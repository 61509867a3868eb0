package io.psmr.bench.clusterbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.e2e.E2eResult;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report's arithmetic and output on made-up samples: medians, CPU per operation by role, the reference ratio. */
class ClusterBenchReportTest {

    private static final ClusterBenchSettings SETTINGS = new ClusterBenchSettings(
            List.of(OrderingProtocol.RING_PAXOS, OrderingProtocol.PBFT), List.of(16), 1, 3, Duration.ofSeconds(1),
            Duration.ofSeconds(0), Duration.ofSeconds(10), Duration.ofSeconds(5), true, false, 42, Path.of("results"), 2);

    /** {@code ops} operations in the 10 s window, {@code acceptor} and {@code replica} ms of CPU. */
    private static ClusterBench.Sample sample(long ops, long acceptorMillis, long replicaMillis, long loadMillis) {
        Map<NodeRole, Long> byRole = acceptorMillis < 0 ? Map.of(NodeRole.REPLICA, replicaMillis * 1_000_000)
                : Map.of(NodeRole.ACCEPTOR, acceptorMillis * 1_000_000, NodeRole.REPLICA, replicaMillis * 1_000_000);
        long cluster = byRole.values().stream().mapToLong(Long::longValue).sum();
        return new ClusterBench.Sample(ops, ops / 10.0, 1000, 5000, 9000, byRole, cluster, loadMillis * 1_000_000);
    }

    private static ClusterBenchReport report() {
        ClusterBench.Measured m = new ClusterBench.Measured(
                Map.of(OrderingProtocol.RING_PAXOS, Map.of(16, List.of(sample(10_000, 500, 1500, 1000),
                                sample(20_000, 800, 3200, 2000), sample(40_000, 4000, 4000, 4000))),
                        OrderingProtocol.PBFT, Map.of(16, List.of(sample(1_000, -1, 4000, 100)))),
                Map.of(OrderingProtocol.RING_PAXOS, List.of(new ClusterBench.Idle(100_000_000, 1_000_000_000, 5),
                                new ClusterBench.Idle(300_000_000, 1_000_000_000, 5), new ClusterBench.Idle(200_000_000, 1_000_000_000, 5)),
                        OrderingProtocol.PBFT, List.of(new ClusterBench.Idle(50_000_000, 1_000_000_000, 4))));
        E2eResult ref = new E2eResult(OrderingProtocol.RING_PAXOS, SchedulerMode.BITMAP_INDEXED, 200, 8_000, 7_000, 9_000,
                Double.NaN, Double.NaN, 1, 500, 900, 1200, 0, 3, Double.NaN);
        return ClusterBenchReport.of(SETTINGS, m, Map.of(OrderingProtocol.RING_PAXOS, Map.of(16, ref)));
    }

    @Test
    void mediansCpuPerOperationByRoleAndTheReferenceRatio() {
        List<ClusterBenchResult> rs = report().results();
        assertEquals(2, rs.size());
        ClusterBenchResult rp = rs.get(0);
        assertEquals("ringpaxos", rp.ordering());
        assertEquals(3, rp.runs());
        assertEquals(2_000, rp.opsPerSecond(), 1e-9); // 1,000 / 2,000 / 4,000 ops/s
        assertEquals(1_000, rp.minOps(), 1e-9);
        assertEquals(4_000, rp.maxOps(), 1e-9);
        // Cluster CPU per operation: 2 s / 10,000 = 200 us, 4 s / 20,000 = 200 us, 8 s / 40,000 = 200 us.
        assertEquals(200, rp.clusterCpuMicros(), 1e-9);
        // Acceptors: 50, 40, 100 us/op: median 50; replicas: 150, 160, 100: median 150.
        assertEquals(Map.of("acceptor", 50.0, "replica", 150.0), rp.cpuByRoleMicros());
        assertEquals(100, rp.loadCpuMicros(), 1e-9);
        assertEquals(0.2, rp.idleCores(), 1e-12);
        assertEquals(4.0, rp.idleNodePercent(), 1e-9); // 0.2 of a core over 5 nodes
        assertEquals(1.25, rs.get(1).idleNodePercent(), 1e-9); // 0.05 over 4
        assertEquals(2_000 / 8_000.0, rp.processesOverOneJvm(), 1e-12);
        ClusterBenchResult pbft = rs.get(1);
        assertEquals(Map.of("replica", 4000.0), pbft.cpuByRoleMicros());
        assertTrue(Double.isNaN(pbft.referenceOps()) && Double.isNaN(pbft.processesOverOneJvm()), "no reference");
    }

    @Test
    void theTableCsvAndJsonCarryEveryResult() {
        ClusterBenchReport r = report();
        StringWriter w = new StringWriter();
        r.table(new PrintWriter(w));
        List<String> lines = w.toString().lines().toList();
        assertTrue(lines.get(0).startsWith("ordering") && lines.get(0).contains("cpu us/op"), lines.get(0));
        assertTrue(lines.get(1).matches("ringpaxos\\s+16\\s+2,000 \\(1,000-4,000\\)\\s+1\\.0\\s+5\\.0\\s+9\\.0\\s+200\\s+"
                + "acceptor 50, replica 150\\s+100\\s+4\\.00\\s+8,000 \\(7,000-9,000\\)\\s+0\\.25"), lines.get(1));
        assertTrue(lines.get(2).matches("pbft\\s+16\\s+100 \\(100-100\\).*\\s+-\\s+-"), lines.get(2));
        List<String> csv = r.csv().lines().toList();
        assertEquals(3, csv.size());
        assertTrue(csv.get(0).startsWith("ordering,clients,runs,ops_per_s,"), csv.get(0));
        assertTrue(csv.get(1).startsWith("ringpaxos,16,3,2000.000,1000.000,4000.000,"), csv.get(1));
        assertTrue(csv.get(2).endsWith(",,,,,"), "no reference for pbft: " + csv.get(2));
        String json = r.toJson();
        assertTrue(json.contains("\"referenceOps\" : null"), json);
        assertTrue(json.contains("\"durationMillis\" : 10000") && json.contains("\"orderings\" : [ \"ringpaxos\", \"pbft\" ]"),
                json);
        assertTrue(r.summary().contains("| ringpaxos | 16 | 2,000 (1,000-4,000) |"), r.summary());
    }
}
