package io.psmr.bench.cluster;

import io.psmr.kvstore.cluster.ClusterLauncher;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadReport;
import io.psmr.bench.load.OpRecord;
import io.psmr.bench.load.WorkloadSpec;
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

/**
 * The scenario both process tests run against a started cluster of three voters (Ring Paxos
 * acceptors or Ratis peers): a closed-loop load with conflicts through {@link ClusterLoad}
 * (16 clients × 120 operations on 16 keys, 15 % MULTI_PUTs, 20 % hot-key batches), and a third of
 * the way through the coordinator's (leader's) process killed with SIGKILL. After the load: another
 * node coordinates; the killed one is restarted from its durable state; the one that took over is
 * killed, so only the restarted node and the third form a quorum; every key is read back through it.
 *
 * <p>Checks: every operation answered; the first completion after the kill within 20 s; equal
 * digests of the two live replicas at one instance; the history, closed by the final reads (so a
 * lost acknowledged write fails it), linearizable per key.
 */
final class KillUnderLoad {

    static final int CLIENTS = 16;
    static final int OPS = 120;
    static final int KEYS = 16;

    /** What to check about the restarted node, given its name. */
    @FunctionalInterface
    interface RestartCheck {
        void check(String restarted) throws Exception;
    }

    private KillUnderLoad() {
    }

    /**
     * Runs the scenario.
     *
     * @param name         the test's name, for its output
     * @param launcher     a started cluster of three voters
     * @param prefix       the voters' name prefix: {@code acceptor-} or {@code replica-}
     * @param seed         the clients' seed
     * @param context      seed and directory, for messages
     * @param afterRestart what to check once the killed node serves again
     */
    static void run(String name, ClusterLauncher launcher, String prefix, long seed, String context, RestartCheck afterRestart)
            throws Exception {
        assertTrue(launcher.awaitLeader(Duration.ofSeconds(30)).startsWith(prefix), context);
        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), OPS, seed);
        LoadOptions options = new LoadOptions(2, SchedulerMode.BITMAP_INDEXED, 2, 16, 4, Duration.ZERO, 20, Duration.ofSeconds(2), spec);
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
            assertTrue(first.startsWith(prefix), context);
            String next = launcher.awaitLeader(Duration.ofSeconds(30));
            assertNotEquals(first, next, "another node took over, " + context);

            // The first victim back from its durable state; then without `next`, only it and the third form a quorum.
            launcher.restart(first, Duration.ofSeconds(60));
            afterRestart.check(first);
            assertEquals(next, launcher.kill(next), context);
            assertNotEquals(next, launcher.awaitLeader(Duration.ofSeconds(30)), context);
            finalState.putAll(FinalReads.of(proxy, KEYS, context));
        }, Duration.ofSeconds(60));

        assertEquals(0, report.result().unanswered(), context);
        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        assertTrue(history.stream().anyMatch(o -> o.op() == KvOp.MULTI_PUT && o.status() == KvStatus.OK), context);

        long firstAfterKill = history.stream().mapToLong(OpRecord::completeNs).filter(t -> t > killedAtNs.get()).min()
                .orElseThrow(() -> new AssertionError("no operation completed after the kill, " + context));
        long pauseMs = TimeUnit.NANOSECONDS.toMillis(firstAfterKill - killedAtNs.get());
        System.out.println(name + ": first completion " + pauseMs + " ms after the coordinator was killed");
        assertTrue(pauseMs < 20_000, "operations resumed " + pauseMs + " ms after the kill, " + context);

        assertEquals(2, report.digests().size(), "the restarted node and the third, " + context);
        assertTrue(report.digestsAgree(), "replica digests differ: " + report.digests() + ", " + context);

        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);
    }
}
