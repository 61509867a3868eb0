package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.LoadGenerator;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadReport;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.ProxyConfig;
import io.psmr.scheduler.SchedulerMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cluster stop} of a PBFT cluster loses nothing without {@code --discard-uncheckpointed}: 4 replica processes
 * (FIXED leaders, checkpoint every 512 instances) take a load of fewer than 512 instances, so no replica has a
 * checkpoint; the stop orders reads up to instance 512, every replica checkpoints there, and the stop goes on. Resumed
 * with {@code cluster start --resume}, the cluster reads every key as the load left it. Then, with two replicas killed
 * (2 of 4 live, 2f+1 = 3), the stop refuses within seconds, saying why, and stops only with the flag.
 */
@Tag("process")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterPbftStopProcessTest {

    static final int CLIENTS = 4;
    static final int OPS = 40;
    static final int KEYS = 16;

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void aStopFirstAgreesACheckpointAndRefusesWithoutAQuorum() throws Exception {
        long seed = ProcessCluster.seed("ClusterPbftStopProcessTest", dir); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        ClusterLauncher launcher = processes.in(dir);
        launcher.start(ClusterSpec.pbft(4, 2, LeaderRotation.FIXED, ProcessCluster.settings(2)), Duration.ofSeconds(120));
        assertEquals("replica-1", launcher.awaitLeader(Duration.ofSeconds(30)), context);

        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), OPS, seed);
        LoadOptions options = new LoadOptions(4, SchedulerMode.BITMAP_INDEXED, 2, 16, 4, Duration.ZERO, 20,
                Duration.ofSeconds(3), spec);
        Map<String, String> written = new HashMap<>();
        LoadReport report = ClusterLoad.run(launcher.directory(), options, op -> { }, proxy -> readAll(proxy.newClient(),
                written, context), Duration.ofSeconds(60));
        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        assertFalse(written.isEmpty(), context);
        List<ClusterLauncher.Uncheckpointed> unsaved = launcher.uncheckpointed();
        assertEquals(4, unsaved.size(), "fewer than 512 instances: no replica has a checkpoint, " + unsaved + ", " + context);

        // The stop brings every replica to checkpoint 512, then stops.
        long stopStarted = System.nanoTime();
        CliRun stop = CliRun.of("cluster", "stop", "--dir", dir.toString());
        System.out.println("ClusterPbftStopProcessTest: cluster stop took "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopStarted) + " ms:\n" + stop.out());
        assertEquals(0, stop.exitCode(), stop.out() + stop.err() + context);
        assertTrue(stop.out().startsWith("checkpointing first: PBFT replicas keep their log in memory, and a stopped cluster"
                + " resumes from its checkpoints; replica-1 executed "), stop.out());
        assertTrue(stop.out().contains("so that every replica checkpoints at 512\n"), stop.out());
        assertTrue(stop.out().contains("checkpoint 512 held by replica-1, replica-2, replica-3, replica-4\nstopped 4 nodes"),
                stop.out());
        for (int r = 1; r <= 4; r++) {
            assertEquals(OptionalLong.of(512), CheckpointStore.latestIn(launcher.directory().dataDir("replica-" + r)
                    .resolve("checkpoints")), "replica-" + r + ", " + context);
        }

        // Resumed from checkpoint 512: every key reads as the load left it.
        CliRun resumed = CliRun.of("cluster", "start", "--dir", dir.toString(), "--resume");
        assertEquals(0, resumed.exitCode(), resumed.err() + context);
        Map<String, String> after = new HashMap<>();
        long readsStarted = System.nanoTime();
        ClusterLoad.withProxy(launcher.directory(), rc -> ProxyConfig.builder().proxyId(1)
                .detection(rc.detection()).limits(rc.limits()).build(), (proxy, probe) -> {
            readAll(proxy.newClient(), after, context);
            return null;
        });
        System.out.println("ClusterPbftStopProcessTest: the resumed cluster read " + KEYS + " keys in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readsStarted) + " ms");
        assertEquals(written, after, "no acknowledged write lost, " + context);

        // The reads after the resume are instances past checkpoint 512. Two replicas killed: 2 of 4 serve, no quorum.
        launcher.kill("replica-3");
        launcher.kill("replica-4");
        long started = System.nanoTime();
        CliRun refused = CliRun.of("cluster", "stop", "--dir", dir.toString());
        long refusedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(1, refused.exitCode(), refused.out() + refused.err());
        assertTrue(refused.err().startsWith("psmr cluster stop: not stopping: the replicas did not agree a checkpoint to stop"
                + " at: only 2 of 4 replicas serve here, and ordering the stop's checkpoint needs 2f+1 = 3: replica-1 (executed "),
                refused.err());
        assertTrue(refused.err().contains("replica-3 (not serving, newest checkpoint 512)"), refused.err());
        assertTrue(refused.err().contains("stopping now would lose what these replicas executed after their last"
                + " checkpoint:\n  replica-1: instances 513 to "), refused.err());
        assertTrue(refused.err().endsWith("run ./psmr cluster stop again once that is resolved, or pass"
                + " --discard-uncheckpointed to stop anyway\n"), refused.err());
        assertTrue(refusedMs < 10_000, "refused after " + refusedMs + " ms");
        CliRun discard = CliRun.of("cluster", "stop", "--dir", dir.toString(), "--discard-uncheckpointed");
        assertEquals(0, discard.exitCode(), discard.err());
        assertTrue(discard.out().startsWith("stopped 2 nodes: "), discard.out());
    }

    /** Reads every key through {@code client} into {@code into} (absent keys stay absent). */
    private static void readAll(KvClient client, Map<String, String> into, String context) throws Exception {
        for (int k = 0; k < KEYS; k++) {
            KvResult r = client.read(LoadGenerator.key(k)).get(60, TimeUnit.SECONDS);
            if (r.status() == KvStatus.OK) {
                into.put("k" + k, new String(r.value(), StandardCharsets.ISO_8859_1));
            } else {
                assertEquals(KvStatus.NOT_FOUND, r.status(), "read of k" + k + ": " + r + ", " + context);
            }
        }
    }
}
