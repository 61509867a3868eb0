package io.psmr.bench.clusterbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psmr bench cluster --ordering ringpaxos} on a real Ring Paxos process cluster, one short run with the one-JVM
 * reference: the report's structure (operations answered, CPU per operation of both roles and of the load generator,
 * the idle CPU, the reference, the files written) and the cluster stopped afterwards. Asserts structure, never speed.
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterBenchProcessTest {

    @TempDir
    Path out;

    @Test
    void aRingPaxosRunReportsCpuPerOperationAndTheOneJvmReference() throws Exception {
        CliRun r = CliRun.of("bench", "cluster", "--ordering", "ringpaxos", "--clients", "4", "--runs", "1",
                "--warmup", "1s", "--cluster-warmup", "0s", "--duration", "2s", "--idle", "1s", "--out", out.toString(), "--quiet");
        assertEquals(0, r.exitCode(), "stdout:\n" + r.out() + "\nstderr:\n" + r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("ringpaxos ")), r.out());
        assertTrue(r.out().contains(Runtime.getRuntime().availableProcessors() + " cores"), r.out());
        Path dir;
        try (Stream<Path> s = Files.list(out)) {
            dir = s.filter(p -> p.getFileName().toString().startsWith("bench-cluster-")).findFirst().orElseThrow();
        }
        JsonNode results = new ObjectMapper().readTree(dir.resolve(ClusterBenchReport.JSON_FILE).toFile()).get("results");
        assertEquals(1, results.size());
        JsonNode rp = results.get(0);
        assertEquals("ringpaxos", rp.get("ordering").asText());
        assertEquals(4, rp.get("clients").asInt());
        assertTrue(rp.get("opsPerSecond").asDouble() > 0, rp.toString());
        assertTrue(rp.get("clusterCpuMicros").asDouble() > 0, rp.toString());
        assertTrue(rp.get("cpuByRoleMicros").get("acceptor").asDouble() > 0, rp.toString());
        assertTrue(rp.get("cpuByRoleMicros").get("replica").asDouble() > 0, rp.toString());
        assertTrue(rp.get("loadCpuMicros").asDouble() > 0, rp.toString());
        assertTrue(rp.get("idleCores").asDouble() > 0, rp.toString());
        assertEquals(100 * rp.get("idleCores").asDouble() / 5, rp.get("idleNodePercent").asDouble(), 1e-9, "5 nodes");
        assertTrue(rp.get("referenceOps").asDouble() > 0, "the one-JVM reference ran: " + rp);
        assertTrue(Files.readString(dir.resolve(ClusterBenchReport.CSV_FILE)).startsWith("ordering,clients,runs,"));
        for (String png : List.of(ClusterBenchCharts.THROUGHPUT_FILE, ClusterBenchCharts.CPU_FILE)) {
            assertNotNull(ImageIO.read(dir.resolve(png).toFile()), png);
        }
        JsonNode cluster = new ObjectMapper().readTree(dir.resolve("clusters/ringpaxos-1/cluster.json").toFile());
        for (JsonNode node : cluster.get("nodes")) {
            if (node.hasNonNull("pid")) {
                assertTrue(ProcessHandle.of(node.get("pid").asLong()).map(h -> !h.isAlive()).orElse(true),
                        "node " + node.get("name").asText() + " stopped");
            }
        }
        assertTrue(Files.notExists(dir.resolve("clusters/ringpaxos-1/data")), "the stores were deleted");
    }
}
