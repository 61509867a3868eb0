package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.cluster.ClusterLoad;
import io.psmr.proxy.cluster.ClusterSettings;
import io.psmr.proxy.load.LinearizabilityChecker;
import io.psmr.proxy.load.LoadGenerator;
import io.psmr.proxy.load.LoadMode;
import io.psmr.proxy.load.LoadOptions;
import io.psmr.proxy.load.LoadReport;
import io.psmr.proxy.load.OpRecord;
import io.psmr.proxy.load.WorkloadSpec;
import java.nio.charset.StandardCharsets;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7's process form: {@code cluster start --ordering ratis} of 3 Apache Ratis peers (3 JVMs,
 * psmr executing each peer's log), a closed-loop load with conflicts through {@link ClusterLoad}
 * (a Raft client; replies come back from the leader), and the leader's process killed with SIGKILL
 * a third of the way through. Then the killed peer is restarted from its Raft log and snapshots,
 * and the peer that took over is killed, so the final reads need the restarted one in the quorum.
 *
 * <p>Checks: every operation answered; operations complete again within a bounded pause after the
 * kill; equal digests of the two live peers at one applied index (the restarted one caught up);
 * the history, closed by final reads of every key, linearizable per key.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterRatisProcessTest {

    private static final int CLIENTS = 16;
    private static final int OPS = 120;
    private static final int KEYS = 16;

    @TempDir
    Path dir;

    private ClusterLauncher launcher;

    @AfterEach
    void stopCluster() throws InterruptedException {
        if (launcher != null && launcher.directory().exists()) {
            launcher.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void loadSurvivesAKilledLeaderAndARestartedPeerCatchesUp() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        System.out.println("ClusterRatisProcessTest " + context);
        launcher = new ClusterLauncher(dir);
        launcher.startRatis(3, new ClusterSettings("bitmap", 2, 1000, 16, 10), Duration.ofSeconds(120));
        assertTrue(launcher.awaitCoordinator(Duration.ofSeconds(30)).startsWith("replica-"), context);

        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), OPS, seed);
        LoadOptions options = new LoadOptions(2, LoadMode.BITMAP, 2, 16, 4, Duration.ZERO, 20, Duration.ofSeconds(2), spec);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Thread> killer = new AtomicReference<>();
        AtomicReference<String> killed = new AtomicReference<>();
        AtomicReference<Throwable> killFailure = new AtomicReference<>();
        AtomicLong killedAtNs = new AtomicLong();
        Map<String, String> finalState = new HashMap<>();

        LoadReport report = ClusterLoad.run(launcher.directory(), options, op -> {
            history.add(op);
            if (done.incrementAndGet() == CLIENTS * OPS / 3) {
                Thread t = new Thread(() -> {
                    try {
                        killed.set(launcher.kill("coordinator"));
                        killedAtNs.set(System.nanoTime());
                    } catch (Throwable e) {
                        killFailure.set(e);
                    }
                }, "kill-coordinator");
                killer.set(t);
                t.start();
            }
        }, proxy -> {
            killer.get().join(TimeUnit.SECONDS.toMillis(30));
            assertEquals(null, killFailure.get(), context);
            String first = killed.get();
            assertTrue(first.startsWith("replica-"), context);
            String next = launcher.awaitCoordinator(Duration.ofSeconds(30));
            assertNotEquals(first, next, "another peer leads, " + context);

            // The first victim back from its Raft log and snapshots; then without `next`, only it and the third peer form a quorum.
            launcher.restart(first, Duration.ofSeconds(60));
            assertEquals(next, launcher.kill(next), context);
            assertNotEquals(next, launcher.awaitCoordinator(Duration.ofSeconds(30)), context);
            KvClient reader = proxy.newClient();
            for (int k = 0; k < KEYS; k++) {
                KvResult r = reader.read(LoadGenerator.key(k)).get(60, TimeUnit.SECONDS);
                if (r.status() == KvStatus.OK) {
                    finalState.put("k" + k, new String(r.value(), StandardCharsets.ISO_8859_1));
                } else {
                    assertEquals(KvStatus.NOT_FOUND, r.status(), "final read of k" + k + ": " + r + ", " + context);
                }
            }
        }, Duration.ofSeconds(60));

        assertEquals(0, report.result().unanswered(), context);
        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        assertTrue(history.stream().anyMatch(o -> o.op() == KvOp.MULTI_PUT && o.status() == KvStatus.OK), context);

        long firstAfterKill = history.stream().mapToLong(OpRecord::completeNs).filter(t -> t > killedAtNs.get()).min()
                .orElseThrow(() -> new AssertionError("no operation completed after the kill, " + context));
        long pauseMs = TimeUnit.NANOSECONDS.toMillis(firstAfterKill - killedAtNs.get());
        System.out.println("ClusterRatisProcessTest: first completion " + pauseMs + " ms after the coordinator was killed");
        assertTrue(pauseMs < 20_000, "operations resumed " + pauseMs + " ms after the kill, " + context);

        assertEquals(2, report.digests().size(), "the restarted peer and the third, " + context);
        assertTrue(report.digestsAgree(), "replica digests differ: " + report.digests() + ", " + context);

        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);
    }
}
