package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadReport;
import io.psmr.bench.load.OpRecord;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's process form without state transfer: {@code cluster start --ordering pbft} of 4 replicas × 2 pillars
 * (4 JVMs, keys in DIR/keys, FIXED leaders), a closed-loop load with hot keys and MULTI_PUTs through
 * {@link ClusterLoad} (a {@code PbftProposerClient}, f+1 matching replies), and a third of the way through the
 * primary (replica-1: with FIXED leaders it leads every instance of view 0) killed with SIGKILL.
 *
 * <p>Checks: every operation answered; the first completion after the kill within 20 s; equal digests of the 3 live
 * replicas; the history, closed by final reads, linearizable per key. Then the killed replica's restart is refused
 * with {@code PbftKeyFiles.load}'s message while its key file is missing, and while it is {@code rw-r--r--}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterPbftProcessTest {

    static final int CLIENTS = 8;
    static final int OPS = 60;
    static final int KEYS = 16;

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void loadSurvivesAKilledPrimaryAndARestartRefusesABadKeyFile() throws Exception {
        long seed = ProcessCluster.seed("ClusterPbftProcessTest", dir); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        ClusterLauncher launcher = processes.in(dir);
        launcher.start(ClusterSpec.pbft(4, 2, LeaderRotation.FIXED, ProcessCluster.settings(2)), Duration.ofSeconds(120));
        assertEquals("replica-1", launcher.awaitLeader(Duration.ofSeconds(30)), "primary of view 0, " + context);

        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), OPS, seed);
        LoadOptions options = new LoadOptions(4, SchedulerMode.BITMAP_INDEXED, 2, 16, 4, Duration.ZERO, 20,
                Duration.ofSeconds(3), spec);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Thread> killer = new AtomicReference<>();
        AtomicReference<Throwable> killFailure = new AtomicReference<>();
        AtomicLong killedAtNs = new AtomicLong();
        Map<String, String> finalState = new HashMap<>();

        LoadReport report = ClusterLoad.run(launcher.directory(), options, op -> {
            history.add(op);
            if (done.incrementAndGet() == CLIENTS * OPS / 3) {
                Thread t = new Thread(() -> {
                    try {
                        launcher.kill("replica-1");
                        killedAtNs.set(System.nanoTime());
                    } catch (Throwable e) {
                        killFailure.set(e);
                    }
                }, "kill-primary");
                killer.set(t);
                t.start();
            }
        }, proxy -> {
            killer.get().join(TimeUnit.SECONDS.toMillis(30));
            assertEquals(null, killFailure.get(), context);
            finalState.putAll(FinalReads.of(proxy, KEYS, context));
        }, Duration.ofSeconds(60));

        assertEquals(0, report.result().unanswered(), context);
        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        assertTrue(history.stream().anyMatch(o -> o.op() == KvOp.MULTI_PUT && o.status() == KvStatus.OK), context);
        long firstAfterKill = history.stream().mapToLong(OpRecord::completeNs).filter(t -> t > killedAtNs.get()).min()
                .orElseThrow(() -> new AssertionError("no operation completed after the kill, " + context));
        long pauseMs = TimeUnit.NANOSECONDS.toMillis(firstAfterKill - killedAtNs.get());
        System.out.println("ClusterPbftProcessTest: first completion " + pauseMs + " ms after the primary was killed");
        assertTrue(pauseMs < 20_000, "operations resumed " + pauseMs + " ms after the kill, " + context);
        assertEquals(3, report.digests().size(), "the 3 live replicas, " + context);
        assertTrue(report.digestsAgree(), "replica digests differ: " + report.digests() + ", " + context);
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);

        // What a stop would lose (cluster stop refuses without --discard-uncheckpointed): the live replicas' instances past their last
        // checkpoint (none yet: the load is shorter than the 512-instance interval); the killed replica is not live.
        List<ClusterLauncher.Uncheckpointed> unsaved = launcher.uncheckpointed();
        assertEquals(List.of("replica-2", "replica-3", "replica-4"),
                unsaved.stream().map(ClusterLauncher.Uncheckpointed::node).toList(), unsaved + ", " + context);
        for (ClusterLauncher.Uncheckpointed u : unsaved) {
            assertEquals(0, u.checkpoint(), u + ", " + context);
            assertTrue(u.instance() > 0, u + ", " + context);
        }

        // The killed replica's key file: missing, then readable by others. Each restart is refused, saying why.
        Path file = PbftKeyFiles.file(launcher.directory().keysDir(), 0);
        Path aside = dir.resolve("replica-0.keys.aside");
        Files.move(file, aside);
        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> launcher.restart("replica-1", Duration.ofSeconds(30)));
        assertTrue(missing.getMessage().contains("replica-1 refuses to start: PBFT key file " + file + " is missing"),
                missing.getMessage());
        Files.move(aside, file, StandardCopyOption.ATOMIC_MOVE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalStateException readable = assertThrows(IllegalStateException.class,
                () -> launcher.restart("replica-1", Duration.ofSeconds(30)));
        assertTrue(readable.getMessage().contains("PBFT key file " + file + " is rw-r--r--: readable or writable by group or"
                + " others; run chmod 600 " + file), readable.getMessage());

        // Keys rotate only while the whole cluster is stopped; the new generation is owner-only again.
        IllegalArgumentException running = assertThrows(IllegalArgumentException.class, launcher::rotateKeys);
        assertTrue(running.getMessage().startsWith("stop the cluster first (./psmr cluster stop --dir ")
                && running.getMessage().contains("these still run: replica-2 (pid "), running.getMessage());
        String before = generationOf(file);
        launcher.stop(Duration.ofSeconds(10));
        String generation = launcher.rotateKeys();
        for (int r = 0; r < 4; r++) {
            Path rotated = PbftKeyFiles.file(launcher.directory().keysDir(), r);
            assertEquals(generation, generationOf(rotated), rotated.toString());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(rotated)), rotated.toString());
        }
        assertFalse(generation.equals(before), "a new generation, not " + before);
        PbftKeyFiles.load(launcher.directory().keysDir(), 2, 4, 2); // loads as the node will
    }

    private static String generationOf(Path keyFile) throws java.io.IOException {
        return Files.readAllLines(keyFile).stream().filter(l -> l.startsWith("generation=")).findFirst()
                .map(l -> l.substring("generation=".length())).orElseThrow();
    }
}
