package io.psmr.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cluster.ProcessCluster;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterLauncher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real campaign, with processes: a Ring Paxos cluster of 3 acceptors and 2 replicas (5 JVMs),
 * {@code psmr chaos} for 15 s with kill, pause and restart on a fixed seed whose schedule holds a
 * kill and a pause; it must exit 0 with faults injected and healed, equal digests, no lost write
 * and a linearizable history. Its wall time is printed (about 35 s on 2 shared cores).
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ChaosProcessTest {

    /** A seed whose schedule on 3 acceptors pauses the coordinator, then kills it, early enough to fit (checked below). */
    private static final long SEED = 24;

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void aCampaignOfKillsRestartsAndPausesPassesItsChecks() throws Exception {
        long began = System.nanoTime();
        Path cluster = dir.resolve("cluster");
        ClusterLauncher launcher = processes.in(cluster);
        launcher.start(ClusterSpec.ringPaxos(3, 2, ProcessCluster.settings(1)), Duration.ofSeconds(90));

        ChaosOptions planned = new ChaosOptions(Duration.ofSeconds(15), java.util.List.of(FaultKind.KILL, FaultKind.PAUSE), true,
                0, SEED, 8, 32, null);
        FaultSchedule schedule = ChaosCampaign.schedule(launcher.directory().read(),
                FaultTargets.of(launcher.directory().read(), launcher::restartRefusal), planned);
        // A restart takes 5-10 s on 2 busy cores (a JVM start) and delays later faults: the first two must be a pause and a kill.
        assertEquals(FaultKind.PAUSE, schedule.faults().get(0).kind(), "seed " + SEED + ": " + schedule);
        assertEquals(FaultKind.KILL, schedule.faults().get(1).kind(), "seed " + SEED + ": " + schedule);
        assertTrue(schedule.faults().get(1).atMillis() < 7000, "seed " + SEED + ": " + schedule);
        assertTrue(schedule.faults().get(1).node().startsWith("replica-"), "seed " + SEED + " kills a replica: " + schedule);

        Path report = dir.resolve("report.json");
        CliRun run = CliRun.of("chaos", "--cluster", cluster.toString(), "--duration", "15s", "--faults", "kill,pause,restart",
                "--seed", Long.toString(SEED), "--clients", "8", "--keys", "32", "--report", report.toString());
        String context = "seed " + SEED + ", cluster in " + cluster + "\n" + run.out() + run.err();
        System.out.println(run.out());
        assertEquals(0, run.exitCode(), context);
        assertTrue(run.out().contains("chaos: seed " + SEED), context);
        assertTrue(run.out().contains("verdict: PASS"), context);
        assertTrue(run.out().contains("linearizable per key: yes"), context);
        assertTrue(run.out().contains("acknowledged writes kept: yes"), context);
        assertTrue(run.out().contains("(equal)"), context);

        JsonNode json = new ObjectMapper().readTree(Files.readString(report));
        assertTrue(json.get("passed").asBoolean(), context);
        assertEquals(SEED, json.get("seed").asLong());
        JsonNode faults = json.get("faults");
        assertTrue(faults.size() >= 2, "at least two faults injected: " + faults);
        boolean kill = false;
        boolean pause = false;
        boolean replicaKilled = false;
        for (JsonNode f : faults) {
            kill |= f.get("kind").asText().equals("KILL");
            pause |= f.get("kind").asText().equals("PAUSE");
            replicaKilled |= f.get("kind").asText().equals("KILL") && f.get("node").asText().startsWith("replica-");
            assertTrue(f.get("healedMillis").asLong() >= f.get("atMillis").asLong(), "healed: " + f);
        }
        assertTrue(kill && pause, "a kill and a pause: " + faults);
        // Ring Paxos replicas come back from checkpoints, so they are targets too; this seed kills one.
        assertTrue(replicaKilled, "a replica killed and restarted: " + faults);
        assertEquals(2, json.get("digests").size(), context);
        assertTrue(json.get("operations").get("ok").asLong() > 0, context);
        System.out.println("ChaosProcessTest wall time " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began) + " s");
    }
}
