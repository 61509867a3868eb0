package io.psmr.bench.cluster;

import static io.psmr.bench.cluster.NodeFiles.lastLine;
import static io.psmr.bench.cluster.NodeFiles.latestCheckpoint;
import static io.psmr.bench.cluster.NodeFiles.logContains;
import static io.psmr.bench.cluster.NodeFiles.tail;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadReport;
import io.psmr.bench.load.OpRecord;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.proxy.KvClient;
import io.psmr.scheduler.SchedulerMode;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's state transfer in processes: 4 PBFT replicas × 2 pillars (FIXED leaders, a store checkpoint, and so a
 * PBFT checkpoint, every {@value #INTERVAL} delivered instances). Under load replica-1, the primary (with FIXED
 * leaders it leads every instance), is killed; the others change views and go on past many checkpoint intervals (so
 * its log below is discarded everywhere) and until the new primary's transport drops frames for it (so the frames
 * it queued cannot heal the gap); replica-1 is restarted, installs its own last checkpoint, learns the newer
 * stable checkpoint, fetches it from a peer, checks it against the digest 2f+1 replicas certified, installs it and
 * goes on from the log ("caught up by state transfer"). Then replica-4 is killed, so every quorum needs replica-1
 * (now a backup of a later view): writes and the final reads still complete, the 3 live replicas' digests agree, and
 * the history closed by the final reads is linearizable per key.
 */
@Tag("process")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class PbftStateTransferProcessTest {

    static final int INTERVAL = 64;
    /** Instances the others go on while replica-1 is down: beyond what their transports queue for it. */
    static final int BEHIND = 2000;
    /**
     * Frames the primary must have dropped for replica-1 (its queue full, every later frame is dropped): enough that
     * pre-prepares are among them.
     */
    static final int PRIMARY_DROPS = 200;
    private static final Pattern SEND_QUEUE_FULL = Pattern.compile("SEND_QUEUE_FULL=(\\d+)");
    static final int FILLERS = 8;
    static final int CLIENTS = 8;
    static final int OPS = 60;
    static final int KEYS = 16;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failed run's logs and checkpoints stay for diagnosis
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void aRestartedReplicaCatchesUpByStateTransferAndThenCarriesQuorums() throws Exception {
        long seed = ProcessCluster.seed("PbftStateTransferProcessTest", dir); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        long t0 = System.nanoTime();
        ClusterLauncher launcher = processes.in(dir);
        launcher.start(ClusterSpec.pbft(4, 2, LeaderRotation.FIXED, ProcessCluster.settings(2)).withCheckpointInterval(INTERVAL),
                Duration.ofSeconds(120));

        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), OPS, seed);
        LoadOptions options = new LoadOptions(4, SchedulerMode.BITMAP_INDEXED, 2, 16, 4, Duration.ZERO, 20,
                Duration.ofSeconds(3), spec);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Thread> killer = new AtomicReference<>();
        AtomicReference<Throwable> killFailure = new AtomicReference<>();
        AtomicLong killedAt = new AtomicLong();
        Map<String, String> finalState = new HashMap<>();
        Path live = launcher.directory().dataDir("replica-2").resolve("checkpoints");
        Path log = launcher.directory().logFile("replica-1");
        AtomicReference<String> caughtUp = new AtomicReference<>();

        LoadReport report = ClusterLoad.run(launcher.directory(), options, op -> {
            history.add(op);
            if (done.incrementAndGet() == CLIENTS * OPS / 2) { // late enough for a local checkpoint of its own
                Thread t = new Thread(() -> {
                    try {
                        launcher.kill("replica-1");
                        killedAt.set(System.nanoTime());
                    } catch (Throwable e) {
                        killFailure.set(e);
                    }
                }, "kill-replica-1");
                killer.set(t);
                t.start();
            }
        }, proxy -> {
            killer.get().join(TimeUnit.SECONDS.toMillis(30));
            assertEquals(null, killFailure.get(), context);
            long killedCheckpoint = latestCheckpoint(launcher.directory().dataDir("replica-1").resolve("checkpoints"));
            List<KvClient> fillers = new ArrayList<>();
            for (int i = 0; i < FILLERS; i++) {
                fillers.add(proxy.newClient()); // each writes a key of its own, outside the history
            }
            KvClient filler = fillers.get(0);
            // Past the stable checkpoints alone is not enough: the others' transport queues frames for a dead peer
            // (4,096 per connection, the oldest kept) and replays them when it reconnects, so an absence heals from
            // the log until the primary's queue overflows. From then on every pre-prepare it sends is dropped, and
            // those instances can only come back by state transfer.
            awaitCondition("replica-2 to checkpoint " + BEHIND + " instances past replica-1's " + killedCheckpoint
                    + " and the primary to drop " + PRIMARY_DROPS + " frames for replica-1", () -> {
                if (latestCheckpoint(live) >= killedCheckpoint + BEHIND && primarySendQueueDrops(launcher) >= PRIMARY_DROPS) {
                    return true;
                }
                fillConcurrently(fillers, 20);
                return false;
            }, context);

            System.out.println("PbftStateTransferProcessTest: replica-1 killed at checkpoint " + killedCheckpoint
                    + "; before its restart: " + launcher.status().stream().filter(n -> n.status() != null)
                    .map(n -> n.node().name() + " instance " + n.status().instance() + ": " + n.status().detail())
                    .toList());
            launcher.restart("replica-1", Duration.ofSeconds(90));
            // Replica-1 learns that it fell behind from a checkpoint that becomes stable above its gap: new instances
            // bring one whatever the replay left it with.
            awaitCondition("replica-1 to catch up by state transfer", () -> {
                if (logContains(log, "caught up by state transfer")) {
                    return true;
                }
                fillConcurrently(fillers, 4);
                return false;
            }, () -> context + "; status: " + launcher.status() + "\nreplica-1's log ends:\n" + tail(log, 40));
            String lines = Files.readString(log);
            assertTrue(lines.contains("fell behind: checkpoint"), "the restart had to state-transfer, " + context);
            if (killedCheckpoint > 0) {
                assertTrue(lines.contains("resumed from checkpoint " + killedCheckpoint + " (its own)"),
                        "the restart first installed its own checkpoint " + killedCheckpoint + ", " + context);
            }
            caughtUp.set(lastLine(log, "caught up by state transfer"));
            awaitCondition("replica-1 to serve again", () -> launcher.status().stream().anyMatch(n ->
                    n.node().name().equals("replica-1") && n.alive() && n.status() != null && n.status().serving()), context);

            // From now on every quorum (2f+1 = 3) needs replica-1, the old primary.
            launcher.kill("replica-4");
            fill(filler, 2 * INTERVAL);
            finalState.putAll(FinalReads.of(proxy, KEYS, context));
        }, Duration.ofSeconds(60));

        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        assertEquals(3, report.digests().size(), "the 3 live replicas report a digest: " + report.digests() + ", " + context);
        assertTrue(report.digestsAgree(), "replica digests differ: " + report.digests() + ", " + context);
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);
        System.out.println("PbftStateTransferProcessTest: " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)
                + " s; " + caughtUp.get());
    }

    /** The SEND_QUEUE_FULL drops the primary's transport reports (with replica-1 down, they are frames for it). */
    private static long primarySendQueueDrops(ClusterLauncher launcher) {
        return launcher.status().stream()
                .filter(n -> n.alive() && n.status() != null && n.status().coordinator())
                .mapToLong(n -> {
                    Matcher m = SEND_QUEUE_FULL.matcher(n.status().detail());
                    return m.find() ? Long.parseLong(m.group(1)) : 0;
                })
                .max().orElse(0);
    }

    private static void fillConcurrently(List<KvClient> fillers, int n) throws Exception {
        List<java.util.concurrent.CompletableFuture<?>> writes = new ArrayList<>();
        for (int f = 0; f < fillers.size(); f++) {
            KvClient c = fillers.get(f);
            byte[] key = ("filler-" + f).getBytes(StandardCharsets.UTF_8);
            java.util.concurrent.CompletableFuture<?> chain = java.util.concurrent.CompletableFuture.completedFuture(null);
            for (int i = 0; i < n; i++) {
                byte[] value = ("f" + i).getBytes(StandardCharsets.UTF_8);
                chain = chain.thenCompose(x -> c.multiPut(new byte[][] {key}, new byte[][] {value}));
            }
            writes.add(chain);
        }
        for (java.util.concurrent.CompletableFuture<?> w : writes) {
            w.get(60, TimeUnit.SECONDS);
        }
    }

    private static void fill(KvClient filler, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            filler.multiPut(new byte[][] {"filler".getBytes(StandardCharsets.UTF_8)},
                    new byte[][] {("f" + i).getBytes(StandardCharsets.UTF_8)}).get(60, TimeUnit.SECONDS);
        }
    }

    private static void awaitCondition(String what, NodeFiles.Condition c, String context) throws Exception {
        NodeFiles.awaitCondition(what, c, 60, () -> context);
    }

    private static void awaitCondition(String what, NodeFiles.Condition c, java.util.function.Supplier<String> context)
            throws Exception {
        NodeFiles.awaitCondition(what, c, 60, context);
    }
}
