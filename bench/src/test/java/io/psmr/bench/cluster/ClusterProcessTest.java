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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The integration test, with real processes: {@code cluster start} of 3 acceptors and 2
 * replicas (5 JVMs on 127.0.0.1), a closed-loop load with conflicts through {@link ClusterLoad}
 * (proposer on a claimed slot, replies over TCP), and the coordinator's process killed with
 * SIGKILL a third of the way through. Then the killed acceptor is restarted from its durable log
 * and the new coordinator is killed too, so the final reads need the restarted acceptor in the quorum.
 *
 * <p>Checks: every operation answered; operations complete again within a bounded pause after the
 * kill; equal replica digests at one instance; the history, closed by final reads of every key
 * (so a lost acknowledged write fails it), linearizable per key.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterProcessTest {

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

    /**
     * The restarted acceptor's start line must show the state its log gave back (a fresh one holds
     * nothing): without this, a restart that ignored its data directory would pass, since the third
     * acceptor alone still holds every vote.
     */
    static void assertRestoredFromItsLog(Path log, String context) throws java.io.IOException {
        List<String> starts = Files.readAllLines(log).stream().filter(l -> l.contains(" listening on ")).toList();
        assertEquals(2, starts.size(), "two starts of the acceptor in " + log + ", " + context);
        Matcher m = Pattern.compile("trimmed to (\\d+), (\\d+) instances held").matcher(starts.get(1));
        assertTrue(m.find(), starts.get(1));
        assertTrue(Long.parseLong(m.group(1)) + Long.parseLong(m.group(2)) > 0,
                "the restarted acceptor restored nothing: " + starts.get(1) + ", " + context);
        assertTrue(!starts.get(1).contains("round=0,"), "the restarted acceptor lost its promise: " + starts.get(1));
    }

    @Test
    void loadSurvivesAKilledCoordinatorAndARestartedAcceptorRejoins() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        System.out.println("ClusterProcessTest " + context);
        launcher = new ClusterLauncher(dir);
        launcher.start(3, 2, new ClusterSettings("bitmap", 2, 1000, 16, 10), Duration.ofSeconds(90));
        assertTrue(launcher.awaitCoordinator(Duration.ofSeconds(30)).startsWith("acceptor-"), context);

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
            String first = killed.get(); // acceptor-0 unless another briefly took over
            assertTrue(first.startsWith("acceptor-"), context);
            String next = launcher.awaitCoordinator(Duration.ofSeconds(30));
            assertNotEquals(first, next, "a live acceptor took over, " + context);

            // The first victim back from its log; then without `next`, only it and the third acceptor form a quorum.
            launcher.restart(first, Duration.ofSeconds(60));
            assertRestoredFromItsLog(launcher.directory().logFile(first), context);
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
        System.out.println("ClusterProcessTest: first completion " + pauseMs + " ms after the coordinator was killed");
        assertTrue(pauseMs < 20_000, "operations resumed " + pauseMs + " ms after the kill, " + context);

        assertEquals(2, report.digests().size(), context);
        assertTrue(report.digestsAgree(), "replica digests differ: " + report.digests() + ", " + context);

        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);
    }
}
