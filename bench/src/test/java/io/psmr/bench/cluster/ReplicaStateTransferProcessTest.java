package io.psmr.bench.cluster;

import static io.psmr.bench.cluster.NodeFiles.lastLine;
import static io.psmr.bench.cluster.NodeFiles.latestCheckpoint;
import static io.psmr.bench.cluster.NodeFiles.logContains;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.ringpaxos.RingPaxosReplicaRuntime;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.proxy.KvClient;
import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadReport;
import io.psmr.bench.load.OpRecord;
import io.psmr.bench.load.WorkloadSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Ring Paxos replica killed under load stays down long enough for the acceptors to leave it out
 * of their trim point and trim past it; the load goes on without it (a dead replica no longer stalls
 * the cluster). Restarted with {@code cluster restart}, it resumes from its own latest checkpoint,
 * learns that the log has moved past it, fetches a newer checkpoint from the other replica, installs
 * it and catches up. Then both replicas agree (digests at one instance), and the history closed by a
 * read of every key is linearizable.
 */
@Tag("process")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ReplicaStateTransferProcessTest {

    private static final int CLIENTS = 16;
    private static final int OPS = 500;
    private static final int KEYS = 16;

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void aReplicaDownPastTheTrimPointComesBackByStateTransfer() throws Exception {
        long seed = ProcessCluster.seed("ReplicaStateTransferProcessTest", dir); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        long t0 = System.nanoTime();
        ClusterLauncher launcher = processes.in(dir);
        launcher.start(ClusterSpec.ringPaxos(3, 2, ProcessCluster.settings(2)), Duration.ofSeconds(90));

        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(150), OPS, seed);
        LoadOptions options = new LoadOptions(2, SchedulerMode.BITMAP_INDEXED, 2, 16, 4, Duration.ZERO, 20, Duration.ofSeconds(2), spec);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Throwable> killFailure = new AtomicReference<>();
        AtomicLong killedAt = new AtomicLong();
        AtomicReference<Thread> killer = new AtomicReference<>();
        Map<String, String> finalState = new HashMap<>();
        Path live = launcher.directory().dataDir("replica-1").resolve("checkpoints");

        LoadReport report = ClusterLoad.run(launcher.directory(), options, op -> {
            history.add(op);
            if (done.incrementAndGet() == CLIENTS * OPS / 5) {
                Thread t = new Thread(() -> {
                    try {
                        launcher.kill("replica-2");
                        killedAt.set(System.nanoTime());
                    } catch (Throwable e) {
                        killFailure.set(e);
                    }
                }, "kill-replica-2");
                killer.set(t);
                t.start();
            }
        }, proxy -> {
            killer.get().join(TimeUnit.SECONDS.toMillis(30));
            assertEquals(null, killFailure.get(), context);
            long downSince = killedAt.get();
            // The acceptors leave a silent learner out after 300 ticks (3 s at 10 ms); the live replica's
            // later checkpoints then move the trim point past everything the dead one has.
            long killedCheckpoint = latestCheckpoint(launcher.directory().dataDir("replica-2").resolve("checkpoints"));
            // Writes to a key of its own, outside the history, until the log has moved far enough.
            KvClient filler = proxy.newClient();
            // Margin on both: the silence is counted in acceptor ticks, which a loaded machine slows down,
            // and the trim point follows replica-1's reports of its durable checkpoints.
            awaitCondition("replica-1 to checkpoint three intervals past replica-2's " + killedCheckpoint + ", 8 s after the kill",
                    () -> {
                        if (System.nanoTime() - downSince > TimeUnit.SECONDS.toNanos(8)
                                && latestCheckpoint(live) >= killedCheckpoint + 3L * RingPaxosReplicaRuntime.CHECKPOINT_INTERVAL) {
                            return true;
                        }
                        for (int i = 0; i < 50; i++) {
                            filler.multiPut(new byte[][] {"filler".getBytes(StandardCharsets.UTF_8)},
                                    new byte[][] {("f" + i).getBytes(StandardCharsets.UTF_8)}).get(30, TimeUnit.SECONDS);
                        }
                        return false;
                    }, context);

            launcher.restart("replica-2", Duration.ofSeconds(60));
            Path log = launcher.directory().logFile("replica-2");
            awaitCondition("replica-2 to catch up by state transfer", () -> logContains(log, "caught up by state transfer"),
                    context);
            String lines = Files.readString(log);
            assertTrue(lines.contains("fell behind: the acceptors trimmed their log"), "the restart had to state-transfer, "
                    + context);
            finalState.putAll(FinalReads.of(proxy, KEYS, context));
        }, Duration.ofSeconds(60));

        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        long afterKill = history.stream().filter(o -> o.completeNs() > killedAt.get()).count();
        assertTrue(afterKill > CLIENTS * OPS / 2, "the load went on without the dead replica: " + afterKill
                + " operations completed after the kill, " + context);
        assertEquals(2, report.digests().size(), "both replicas report a digest, " + context);
        assertTrue(report.digestsAgree(), "replica digests differ: " + report.digests() + ", " + context);
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        System.out.println("ReplicaStateTransferProcessTest: " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)
                + " s; " + lastLine(launcher.directory().logFile("replica-2"), "caught up by state transfer"));
    }

    private static void awaitCondition(String what, NodeFiles.Condition c, String context) throws Exception {
        NodeFiles.awaitCondition(what, c, 90, () -> context);
    }
}
