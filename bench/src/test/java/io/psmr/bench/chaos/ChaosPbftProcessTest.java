package io.psmr.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cluster.ProcessCluster;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.ordering.pbft.LeaderRotation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real campaign against PBFT, with processes: 4 replicas × 2 pillars with rotating leaders
 * (4 JVMs), {@code psmr chaos --faults byzantine} for 10 s on a seed (printed; {@code -Dpsmr.seed=S}
 * re-runs one), so that every fault restarts a replica Byzantine in a mode the seed picks and later
 * restarts it correct. Correctness only: it must exit 0 with a Byzantine fault injected and healed,
 * equal digests on all four replicas (the one that was Byzantine included), no lost write and a
 * linearizable history. Speed is the benchmark's. Its wall time is printed: about 90 s on 2 cores
 * shared with other builds, nearly all of it replica JVM starts (the cluster's, and two restarts).
 */
@Tag("process")
@Timeout(value = 600, unit = TimeUnit.SECONDS) // the campaign's own bounded waits end first, with their messages
class ChaosPbftProcessTest {

    private static final long SEED = Long.getLong("psmr.seed", 20261127L);

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void aCampaignWithAByzantineReplicaPassesItsChecks() throws Exception {
        long began = System.nanoTime();
        Path cluster = dir.resolve("cluster");
        String context = "seed " + SEED + " (-Dpsmr.seed=S), cluster in " + cluster;
        System.out.println("ChaosPbftProcessTest " + context);
        ClusterLauncher launcher = processes.in(cluster);
        launcher.start(ClusterSpec.pbft(4, 2, LeaderRotation.ROTATING, ProcessCluster.settings(1)).withCheckpointInterval(64),
                Duration.ofSeconds(120));

        ChaosOptions planned = new ChaosOptions(Duration.ofSeconds(10), List.of(FaultKind.BYZANTINE), false, 0, SEED, 4, 32, null);
        FaultSchedule schedule = ChaosCampaign.schedule(launcher.directory().read(),
                FaultTargets.of(launcher.directory().read(), launcher::restartRefusal), planned);
        assertEquals(FaultKind.BYZANTINE, schedule.faults().get(0).kind(), context + ": " + schedule);

        Path report = dir.resolve("report.json");
        CliRun run = CliRun.of("chaos", "--cluster", cluster.toString(), "--duration", "10s", "--faults", "byzantine",
                "--seed", Long.toString(SEED), "--clients", "4", "--keys", "32", "--report", report.toString());
        String out = context + "\n" + run.out() + run.err();
        System.out.println(run.out());
        assertEquals(0, run.exitCode(), out);
        assertTrue(run.out().contains("chaos: seed " + SEED), out);
        assertTrue(run.out().contains("verdict: PASS"), out);
        assertTrue(run.out().contains("linearizable per key: yes"), out);
        assertTrue(run.out().contains("acknowledged writes kept: yes"), out);
        assertTrue(run.out().contains("(equal)"), out);

        JsonNode json = new ObjectMapper().readTree(Files.readString(report));
        assertTrue(json.get("passed").asBoolean(), out);
        assertEquals(SEED, json.get("seed").asLong());
        JsonNode faults = json.get("faults");
        assertTrue(faults.size() >= 1, "a Byzantine fault injected: " + out);
        for (JsonNode f : faults) {
            assertEquals("BYZANTINE", f.get("kind").asText(), out);
            assertTrue(f.hasNonNull("mode"), "the mode is reported: " + f);
            assertTrue(f.get("healedMillis").asLong() >= f.get("atMillis").asLong(), "restarted correct: " + f);
        }
        assertEquals(4, json.get("digests").size(), "every replica, the once Byzantine one included: " + out);
        assertTrue(launcher.directory().read().pbft().byzantine().isEmpty(), "every replica correct again in cluster.json");
        assertTrue(json.get("operations").get("ok").asLong() > 0, out);
        System.out.println("ChaosPbftProcessTest wall time " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began) + " s");
    }
}
