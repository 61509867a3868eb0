package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
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
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import io.psmr.scheduler.SchedulerMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's Byzantine run as processes: {@code cluster start --ordering pbft --byzantine replica-1=equivocating-leader}
 * (4 JVMs × 2 pillars, FIXED leaders, so replica-1 leads every instance of view 0), a closed-loop load with hot keys and
 * MULTI_PUTs trusted on f+1 matching replies. Then a new cluster with replica-3 {@code wrong-replies} and a second
 * load. (That a restart keeps the mode, read from cluster.json at every start, is {@code PbftByzantineRuntimeTest}'s,
 * in one JVM: a process restart here cost ~40 s on the shared box.)
 *
 * <p>Checks: every operation answered in both phases; the correct replicas left view 0 in every pillar (the view change
 * away from the liar completed); the three correct replicas' digests are equal; the history of both phases, closed
 * by final reads, is linearizable per key (so no accepted result was forged); the liar forged replies in the
 * second run (its own counter, in its status); {@code cluster status} marks the
 * Byzantine replica and shows what it did.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterByzantineProcessTest {

    static final int CLIENTS = 6;
    static final int OPS = 30;
    static final int KEYS = 12;
    static final Pattern VIEW = Pattern.compile("pillar (\\d+): view (\\d+),");

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void anEquivocatingLeaderThenWrongRepliesNeverMisleadTheClients() throws Exception {
        long seed = Long.getLong("psmr.seed", 20261123L);
        String context = "seed " + seed + " (-Dpsmr.seed=S), cluster in " + dir;
        System.out.println("ClusterByzantineProcessTest " + context);
        ClusterLauncher launcher = processes.in(dir);
        long t0 = System.nanoTime();
        launcher.start(ClusterSpec.pbft(4, 2, LeaderRotation.FIXED, ProcessCluster.settings(2))
                .withByzantine(Map.of("replica-1", ByzantineMode.EQUIVOCATING_LEADER)), Duration.ofSeconds(120));
        assertEquals(Map.of("replica-1", ByzantineMode.EQUIVOCATING_LEADER), launcher.directory().read().pbft().byzantine());

        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        Map<String, String> finalState = new HashMap<>();
        long started = System.nanoTime();
        LoadReport first = load(launcher, seed, history, finalState, context);
        long loaded = System.nanoTime();
        assertEquals(4, first.digests().size(), context);
        assertEquals(1, first.digests().subList(1, 4).stream().distinct().count(),
                "the correct replicas' digests differ: " + first.digests() + ", " + context);
        assertTrue(history.stream().anyMatch(o -> o.op() == KvOp.MULTI_PUT && o.status() == KvStatus.OK), context);
        assertLinearizable(history, finalState, context);
        for (String correct : List.of("replica-2", "replica-3", "replica-4")) {
            Map<Integer, Long> views = views(launcher, correct);
            assertEquals(2, views.size(), correct + ": " + views + ", " + context);
            views.forEach((p, v) -> assertTrue(v >= 1, correct + " pillar " + p + " still in view 0, " + context));
        }
        String status = CliRun.of("cluster", "status", "--dir", dir.toString()).out();
        assertTrue(status.contains("replica-1 is BYZANTINE on purpose: equivocating-leader"), status);
        Matcher changed = Pattern.compile("BYZANTINE \\(testing tool\\): equivocating-leader; envelopes changed (\\d+)").matcher(status);
        assertTrue(changed.find() && Long.parseLong(changed.group(1)) > 0, "the runtime applied the mode: " + status);

        // Second run: a new cluster, replica-3 ordering correctly but forging every result it replies. A fresh cluster
        // (not a restart) so that the liar is in step with the others and its replies race theirs.
        long checked = System.nanoTime();
        launcher.stop(Duration.ofSeconds(10));
        launcher.wipe();
        launcher.start(ClusterSpec.pbft(4, 2, LeaderRotation.FIXED, ProcessCluster.settings(2))
                .withByzantine(Map.of("replica-3", ByzantineMode.WRONG_REPLIES)), Duration.ofSeconds(120));
        List<OpRecord> second = Collections.synchronizedList(new ArrayList<>());
        Map<String, String> secondState = new HashMap<>();
        long secondStarted = System.nanoTime();
        LoadReport liar = load(launcher, seed + 1, second, secondState, context);
        long secondLoaded = System.nanoTime();
        // Whether a forged reply arrives before its command's f+1 matching ones is timing: the attack is proven by the
        // liar's own forged-reply counter below, its failure by the history and the outputs.
        assertEquals(1, liar.digests().stream().distinct().count(),
                "digests differ (the liar stores correctly): " + liar.digests() + ", " + context);
        assertLinearizable(second, secondState, context); // so no accepted result was a forged one
        assertTrue(second.stream().noneMatch(o -> o.output() != null
                && new String(o.output(), StandardCharsets.ISO_8859_1).equals("forged")), context);
        String after = CliRun.of("cluster", "status", "--dir", dir.toString()).out();
        Matcher forged = Pattern.compile("BYZANTINE \\(testing tool\\): wrong-replies; replies forged (\\d+)").matcher(after);
        assertTrue(after.contains("replica-3 is BYZANTINE on purpose: wrong-replies") && forged.find()
                && Long.parseLong(forged.group(1)) > 0, after);
        System.out.printf("ClusterByzantineProcessTest: mismatching replies outvoted %d; seconds: start %.1f, load %.1f, "
                + "checks %.1f, stop and second start %.1f, second load %.1f%n", liar.proxy().mismatchingReplies(),
                (started - t0) / 1e9, (loaded - started) / 1e9, (checked - loaded) / 1e9, (secondStarted - checked) / 1e9,
                (secondLoaded - secondStarted) / 1e9);
    }

    /** One closed-loop run with hot keys and MULTI_PUTs; final reads of every key go into {@code finalState}. */
    private static LoadReport load(ClusterLauncher launcher, long seed, List<OpRecord> history, Map<String, String> finalState,
                                   String context) throws Exception {
        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), OPS, seed);
        LoadOptions options = new LoadOptions(4, SchedulerMode.BITMAP_INDEXED, 2, 16, 4, Duration.ZERO, 20,
                Duration.ofSeconds(3), spec);
        LoadReport report = ClusterLoad.run(launcher.directory(), options, history::add, proxy -> {
            finalState.clear();
            finalState.putAll(FinalReads.of(proxy, KEYS, context));
        }, Duration.ofSeconds(60));
        assertEquals(0, report.result().unanswered(), context);
        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        return report;
    }

    private static void assertLinearizable(List<OpRecord> history, Map<String, String> finalState, String context) {
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(new ArrayList<>(history), finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);
    }

    /** Each pillar's view as replica {@code name}'s status says. */
    private static Map<Integer, Long> views(ClusterLauncher launcher, String name) {
        NodeStatus s = launcher.status().stream().filter(v -> v.node().name().equals(name)).findFirst().orElseThrow().status();
        Map<Integer, Long> views = new HashMap<>();
        Matcher m = VIEW.matcher(s == null || s.detail() == null ? "" : s.detail());
        while (m.find()) {
            views.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        }
        return views;
    }
}
