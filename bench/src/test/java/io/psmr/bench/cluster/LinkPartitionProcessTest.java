package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadReport;
import io.psmr.bench.load.OpRecord;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.links.LinkCondition;
import io.psmr.kvstore.cluster.links.LinkControl;
import io.psmr.scheduler.SchedulerMode;
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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A network partition through the fault-injecting links, on real processes: a Ratis cluster of three peers started
 * with {@code --links} under a closed-loop load (Ring Paxos runs a whole campaign of network faults in
 * {@code ChaosNetworkProcessTest}); a third of the way through, the
 * leader is cut off from every other process, clients included, in both directions, with no process killed or
 * paused (every one of its links a blackhole: nothing passes, nothing is closed). The majority side must go on serving:
 * {@value #SERVED_WHILE_CUT} operations complete while the leader is cut off. Then the links heal, the load ends, and
 * every key is read back. Checks: every operation answered, equal digests of every replica at one instance (the cut-off
 * one caught up), and a history closed by the final reads that is linearizable per key (a lost acknowledged write
 * fails it). The nodes learn nothing of the links: they dial what their copy of the cluster names.
 */
@Tag("process")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LinkPartitionProcessTest {

    static final int CLIENTS = 8;
    static final int OPS = 150;
    static final int KEYS = 16;
    /** Operations that must complete while the leader is cut off. */
    static final int SERVED_WHILE_CUT = 100;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void ratisServesOnTheMajoritySideWhileItsLeaderIsCutOff() throws Exception {
        ClusterLauncher launcher = processes.in(dir).serveLinks(true);
        launcher.start(ClusterSpec.ratis(3, ProcessCluster.settings(2)), Duration.ofSeconds(120));
        partitionTheLeader("LinkPartitionProcessTest(ratis)", launcher, 3);
    }

    private void partitionTheLeader(String name, ClusterLauncher launcher, int replicas) throws Exception {
        long seed = ProcessCluster.seed(name, dir);
        String context = "seed " + seed + ", cluster in " + dir;
        LinkControl links = new LinkControl(launcher.links().orElseThrow());
        String leader = launcher.awaitLeader(Duration.ofSeconds(30));

        WorkloadSpec spec = new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), OPS, seed);
        LoadOptions options = new LoadOptions(replicas, SchedulerMode.BITMAP_INDEXED, 2, 16, 4, Duration.ZERO, 20,
                Duration.ofSeconds(2), spec);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger done = new AtomicInteger();
        AtomicLong cutAt = new AtomicLong();
        AtomicInteger servedWhileCut = new AtomicInteger();
        AtomicLong servedAfterMs = new AtomicLong();
        AtomicReference<Thread> healer = new AtomicReference<>();
        AtomicReference<Throwable> healerFailure = new AtomicReference<>();
        Map<String, String> finalState = new HashMap<>();

        LoadReport report = ClusterLoad.run(launcher.directory(), options, op -> {
            history.add(op);
            long cut = cutAt.get();
            if (cut > 0 && healer.get() == null && op.acknowledged() && op.invokeNs() > cut
                    && servedWhileCut.incrementAndGet() == SERVED_WHILE_CUT) {
                servedAfterMs.set(TimeUnit.NANOSECONDS.toMillis(op.completeNs() - cut));
                Thread t = new Thread(() -> {
                    try {
                        connect(links, leader, LinkCondition.PASS);
                    } catch (Throwable e) {
                        healerFailure.set(e);
                    }
                }, "heal-links");
                healer.set(t);
                t.start();
            }
            if (done.incrementAndGet() == CLIENTS * OPS / 3) {
                connect(links, leader, LinkCondition.BLACKHOLE); // on a client thread: its own operation waits
                cutAt.set(System.nanoTime());
            }
        }, proxy -> {
            Thread t = healer.get();
            assertTrue(t != null, "the majority side did not complete " + SERVED_WHILE_CUT + " operations while "
                    + leader + " was cut off (" + servedWhileCut.get() + "), " + context);
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertEquals(null, healerFailure.get(), context);
            finalState.putAll(FinalReads.of(proxy, KEYS, context));
        }, Duration.ofSeconds(60));

        assertEquals((long) CLIENTS * OPS, report.result().acknowledged(), "every operation answered, " + context);
        assertEquals(replicas, report.digests().size(), "every replica reports a digest: " + report.digests() + ", " + context);
        assertTrue(report.digestsAgree(), "replica digests differ: " + report.digests() + ", " + context);
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, finalState);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);
        String voters = leader.substring(0, leader.indexOf('-') + 1);
        long amongOthers = links.states().stream().filter(s -> !s.from().equals(leader) && !s.to().equals(leader)
                && s.from().startsWith(voters) && s.to().startsWith(voters)).mapToLong(LinkControl.LinkState::bytes).sum();
        assertTrue(amongOthers > 0, "the other voters reached each other through links of their own, " + context);
        System.out.println(name + ": " + leader + " cut off; the majority side completed " + SERVED_WHILE_CUT
                + " operations in " + servedAfterMs.get() + " ms; " + amongOthers + " bytes between the other voters");
    }

    /** Sets every link between {@code node} and the other processes, both ways, to {@code c}. */
    private static void connect(LinkControl links, String node, LinkCondition c) {
        for (LinkControl.LinkState s : links.states()) {
            if (s.from().equals(node) || s.to().equals(node)) {
                links.condition(s.from(), s.to(), c);
            }
        }
    }
}
