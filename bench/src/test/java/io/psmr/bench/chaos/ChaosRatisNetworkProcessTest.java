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
 * A campaign of network faults against Ratis, with processes: 3 peers behind links, {@code psmr chaos} for 12 s of
 * {@code partition-halves,flaky,isolate-leader} on a fixed seed whose schedule splits a peer off, resets random
 * connections every 200 ms (the Raft clients' among them: the failure that deadlocked Ratis 3.3.0's ordered async
 * client) and cuts the leader off. Two of the eight clients go with the minority side of each partition. It must exit
 * 0 with every fault injected and healed, equal digests, no lost write, a linearizable history, and no minority client
 * acknowledged while cut off. {@code -Dpsmr.seed=S} runs another seed (whose schedule the first check may refuse).
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ChaosRatisNetworkProcessTest {

    private static final long SEED = Long.getLong("psmr.seed", 48);
    private static final List<FaultKind> FAULTS = List.of(FaultKind.PARTITION_HALVES, FaultKind.FLAKY,
            FaultKind.ISOLATE_LEADER);

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void partitionsResetsAndAnIsolatedLeaderOnRatisPassTheChecks() throws Exception {
        long began = System.nanoTime();
        Path cluster = dir.resolve("cluster");
        ClusterLauncher launcher = processes.in(cluster).serveLinks(true);
        launcher.start(ClusterSpec.ratis(3, ProcessCluster.settings(1)), Duration.ofSeconds(90));

        ChaosOptions planned = new ChaosOptions(Duration.ofSeconds(12), FAULTS, false, 0, SEED, 8, 32, null);
        FaultSchedule schedule = ChaosCampaign.schedule(launcher.directory().read(),
                FaultTargets.of(launcher.directory().read(), launcher::restartRefusal), planned);
        Set<FaultKind> kinds = schedule.faults().stream().map(PlannedFault::kind).collect(Collectors.toSet());
        assertEquals(Set.copyOf(FAULTS), kinds, "seed " + SEED + " partitions, resets and isolates: " + schedule);

        Path report = dir.resolve("report.json");
        CliRun run = CliRun.of("chaos", "--cluster", cluster.toString(), "--duration", "12s", "--faults",
                FAULTS.stream().map(FaultKind::cliName).collect(Collectors.joining(",")), "--seed", Long.toString(SEED),
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
        assertEquals(schedule.faults().size(), faults.size(), "every planned fault injected: " + faults);
        for (JsonNode f : faults) {
            assertTrue(f.get("healedMillis").asLong() >= f.get("atMillis").asLong(), "healed: " + f);
            assertTrue(f.get("error").isNull(), "no error: " + f);
        }
        assertEquals(2, json.get("minorityClients").asInt(), context);
        JsonNode minority = json.get("minority");
        assertEquals(2, minority.size(), "the partition and the isolation cut the minority clients off: " + minority);
        for (JsonNode m : minority) {
            assertEquals(0, m.get("acknowledged").asLong(), "no acknowledgement on the minority side: " + m);
            assertTrue(m.get("outstanding").asLong() > 0, "the minority clients had operations under way: " + m);
        }
        assertEquals(0, json.get("operations").get("unknown").asLong(),
                "every operation answered: no Raft client stopped answering\n" + context);
        System.out.println("ChaosRatisNetworkProcessTest wall time " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime()
                - began) + " s");
    }
}
