package io.psmr.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cluster.ProcessCluster;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A campaign of network faults, with processes: a Ring Paxos cluster of 3 acceptors and 2 replicas behind links
 * ({@code cluster start --links}), {@code psmr chaos} for 15 s with every network fault on a fixed seed whose schedule
 * cuts the coordinator off and splits the cluster in halves. It must exit 0 with every fault injected and healed,
 * equal digests, no lost write and a linearizable history, and the report must say what each network fault did to
 * the clients' throughput. Two of the eight clients go with the minority side of each partition and the isolated
 * coordinator: none of them may be acknowledged while cut off. {@code -Dpsmr.seed=S} runs another seed (whose schedule the first checks may refuse).
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ChaosNetworkProcessTest {

    private static final long SEED = Long.getLong("psmr.seed", 56);
    private static final List<FaultKind> NETWORK = java.util.Arrays.stream(FaultKind.values()).filter(FaultKind::network)
            .toList();

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void aCampaignOfNetworkFaultsOnRingPaxosPassesItsChecks() throws Exception {
        long began = System.nanoTime();
        Path cluster = dir.resolve("cluster");
        ClusterLauncher launcher = processes.in(cluster).serveLinks(true);
        launcher.start(ClusterSpec.ringPaxos(3, 2, ProcessCluster.settings(1)), Duration.ofSeconds(90));

        ChaosOptions planned = new ChaosOptions(Duration.ofSeconds(15), NETWORK, false, 0, SEED, 8, 32, null);
        FaultSchedule schedule = ChaosCampaign.schedule(launcher.directory().read(),
                FaultTargets.of(launcher.directory().read(), launcher::restartRefusal), planned);
        Set<FaultKind> kinds = schedule.faults().stream().map(PlannedFault::kind).collect(Collectors.toSet());
        assertTrue(kinds.contains(FaultKind.ISOLATE_LEADER) && kinds.contains(FaultKind.PARTITION_HALVES),
                "seed " + SEED + " isolates the leader and splits the cluster: " + schedule);

        Path report = dir.resolve("report.json");
        CliRun run = CliRun.of("chaos", "--cluster", cluster.toString(), "--duration", "15s", "--faults",
                NETWORK.stream().map(FaultKind::cliName).collect(Collectors.joining(",")), "--seed", Long.toString(SEED),
                "--clients", "8", "--keys", "32", "--report", report.toString());
        String context = "seed " + SEED + ", cluster in " + cluster + "\n" + run.out() + run.err();
        System.out.println(run.out());
        assertEquals(0, run.exitCode(), context);
        assertTrue(run.out().contains("verdict: PASS"), context);
        assertTrue(run.out().contains("linearizable per key: yes"), context);
        assertTrue(run.out().contains("acknowledged writes kept: yes"), context);
        assertTrue(run.out().contains("(equal)"), context);

        JsonNode json = new ObjectMapper().readTree(Files.readString(report));
        JsonNode faults = json.get("faults");
        // A fault whose turn comes after the last moment to inject (a slow heal before it pushed it there) is left out
        // by design; the partition and the isolated leader come first in this schedule and must be there.
        Set<String> injected = new java.util.HashSet<>();
        faults.forEach(f -> injected.add(f.get("kind").asText()));
        assertTrue(injected.containsAll(Set.of(FaultKind.PARTITION_HALVES.name(), FaultKind.ISOLATE_LEADER.name())),
                "the partition and the isolated leader injected: " + faults);
        assertTrue(faults.size() <= schedule.faults().size(), "only planned faults: " + faults);
        for (JsonNode f : faults) {
            assertTrue(f.get("healedMillis").asLong() >= f.get("atMillis").asLong(), "healed: " + f);
            assertTrue(f.get("error").isNull(), "no error: " + f);
        }
        assertEquals(2, json.get("minorityClients").asInt(), "a quarter of the clients go with minority sides: " + context);
        JsonNode minority = json.get("minority");
        assertEquals(schedule.faults().stream().filter(f -> f.kind() == FaultKind.PARTITION_HALVES
                        || f.kind() == FaultKind.ISOLATE_LEADER).count(), minority.size(),
                "a line per partition that cut the minority clients off: " + minority);
        for (JsonNode m : minority) {
            assertEquals(0, m.get("acknowledged").asLong(), "no acknowledgement on the minority side: " + m);
        }
        JsonNode network = json.get("network");
        assertEquals(faults.size(), network.size(), "an effect per network fault: " + network);
        for (JsonNode e : network) {
            if (e.get("kind").asText().equals("isolate-leader")) {
                assertTrue(e.get("throughputFraction").asDouble() > 0,
                        "the majority side served while the coordinator was cut off: " + e + "\n" + context);
            }
        }
        System.out.println("ChaosNetworkProcessTest wall time " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began)
                + " s");
    }
}
