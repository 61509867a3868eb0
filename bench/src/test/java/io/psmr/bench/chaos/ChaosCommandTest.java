package io.psmr.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code psmr chaos} usage errors exit 2, name the flag and print the usage; no cluster is started. */
class ChaosCommandTest {

    @TempDir
    Path dir;

    @Test
    void usageErrorsExit2AndNameTheFlag() {
        String d = dir.toString();
        assertUsage(CliRun.of("chaos"), "Missing required option: '--cluster=DIR'");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--faults", "kill,explode"),
                "--faults entries must be kill, pause, restart, byzantine, partition-halves, partition-majorities-ring,"
                        + " isolate-leader, one-way, slow-links, flaky, got 'explode'");
        Path plain = dir.resolve("plain");
        new io.psmr.kvstore.cluster.ClusterDirectory(plain).create(ChaosScheduleTest.ringPaxos(3, 2));
        assertUsage(CliRun.of("chaos", "--cluster", plain.toString(), "--faults", "partition-halves,kill"),
                "--faults: [partition-halves] need a cluster behind links, and " + plain + " has none (start it with"
                        + " ./psmr cluster start --links)");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--faults", "kill,,pause"),
                "--faults entries must be kill, pause, restart, byzantine, partition-halves, partition-majorities-ring,"
                        + " isolate-leader, one-way, slow-links, flaky, got ''");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--faults", "restart"), "--faults: restart needs kill");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--duration", "soon"),
                "Invalid value for option '--duration': 'soon' is not a duration: write a whole number with a unit ms, s, m or h");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--duration", "30"), "Invalid value for option '--duration': '30' has no unit");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--duration", "2s"), "--duration must be from 5s to 1h, got 2s");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--max-down", "0"), "--max-down must be at least 1, got 0");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--beyond-f", "--faults", "byzantine"),
                "--beyond-f needs kill, pause or a network fault: Byzantine replicas stay at most f");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--clients", "0"), "--clients must be from 1 to 1000, got 0");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--seed", "x"), "--seed");
        assertUsage(CliRun.of("chaos", "--cluster", d), "--cluster: ");
    }

    /**
     * A PBFT cluster with more than f replicas Byzantine or down is refused at once, naming the bound and the
     * replicas, before any load or fault; so is --max-down above f.
     */
    @Test
    void aPbftClusterBeyondFIsRefusedNamingTheBound() {
        Path pbft = init("pbft", 7500, "--ordering", "pbft", "--byzantine", "replica-2=silent");
        CliRun r = CliRun.of("chaos", "--cluster", pbft.toString());
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertTrue(r.err().startsWith("psmr chaos: --cluster: " + pbft + ": 4 replicas are already Byzantine or down (replica-1"
                + " down, replica-2 byzantine silent, replica-3 down, replica-4 down), more than the f = (n-1)/3 = 1 of 4 replicas"
                + " that may be faulty at once\n"), r.err());
        assertTrue(r.err().contains("Usage: psmr chaos "), r.err());
        assertEquals("", r.out());

        CliRun maxDown = CliRun.of("chaos", "--cluster", pbft.toString(), "--max-down", "2");
        assertEquals(2, maxDown.exitCode(), maxDown.out() + maxDown.err());
        assertTrue(maxDown.err().startsWith("psmr chaos: --max-down must be at most f = (n-1)/3 = 1 of 4 replicas on a pbft"
                + " cluster without --beyond-f, got 2\n"), maxDown.err());
        String help = CliRun.of("chaos", "--help").out().replaceAll("\\s+", " ");
        assertTrue(help.contains("On PBFT at most f = (n-1)/3 replicas are faulty at once, Byzantine ones included"), help);
        assertTrue(!help.contains("A PBFT cluster is refused"), help);
    }

    /** byzantine is refused on the crash-tolerant orderings, naming the kind and why. */
    @Test
    void byzantineFaultsNeedAPbftCluster() {
        Path ringPaxos = init("ringpaxos", 7600, "--ordering", "ringpaxos");
        Path ratis = init("ratis", 7700, "--ordering", "ratis");
        for (Path[] c : new Path[][] {{ringPaxos}, {ratis}}) {
            String ordering = c[0].getFileName().toString();
            CliRun r = CliRun.of("chaos", "--cluster", c[0].toString(), "--faults", "kill,restart,byzantine");
            assertEquals(2, r.exitCode(), r.out() + r.err());
            assertTrue(r.err().startsWith("psmr chaos: --faults: byzantine needs a pbft cluster, and " + c[0] + " holds a "
                    + ordering + " cluster: it tolerates crashes only, and its replicas have no Byzantine mode to restart in\n"),
                    r.err());
        }
    }

    private Path init(String name, int basePort, String... flags) {
        Path c = dir.resolve(name);
        List<String> args = new java.util.ArrayList<>(List.of("cluster", "init", "--dir", c.toString(), "--hosts", "127.0.0.2",
                "--base-port", Integer.toString(basePort)));
        args.addAll(List.of(flags));
        CliRun r = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r.out() + r.err());
        return c;
    }

    /** Safety (3) before liveness (4) before any other failure (1); 0 only when every check held. */
    @Test
    void theExitCodeSaysWhichKindOfCheckFailed() {
        assertEquals(0, ChaosCommand.exitCode(report(List.of("a", "a"), true, true, List.of(), false)));
        assertEquals(3, ChaosCommand.exitCode(report(List.of("a", "b"), true, true, List.of("digests: the replicas differ"), false)));
        assertEquals(3, ChaosCommand.exitCode(report(List.of("a", "a"), true, false, List.of("linearizability: 1 keys"), true)));
        assertEquals(3, ChaosCommand.exitCode(report(List.of("a", "a"), false, true, List.of("lost writes: 1 keys"), false)));
        assertEquals(4, ChaosCommand.exitCode(report(List.of(), null, null, List.of("campaign: stalled"), true)));
        assertEquals(1, ChaosCommand.exitCode(report(List.of("a", "a"), true, true, List.of("fault: could not restart"), false)));
    }

    private static ChaosReport report(List<String> digests, Boolean writesKept, Boolean linearizable, List<String> failures,
                                      boolean stalled) {
        return new ChaosReport(1, "ringpaxos", "dir", 5000, List.of("kill"), List.of(), List.of(), List.of(),
                new ChaosReport.Operations(10, 0, 0), 500, List.of(), 0, digests, 2, writesKept, linearizable, 1, List.of(),
                failures, stalled);
    }

    @Test
    void theCommandIsListed() {
        CliRun help = CliRun.of("--help");
        assertEquals(0, help.exitCode());
        assertTrue(help.out().contains("chaos"), help.out());
        for (String flag : List.of("--cluster", "--duration", "--faults", "--seed", "--max-down", "--beyond-f", "--clients",
                "--report")) {
            assertTrue(CliRun.of("chaos", "--help").out().contains(flag), flag);
        }
    }

    private static void assertUsage(CliRun run, String message) {
        assertEquals(2, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains(message), "expected '" + message + "' in:\n" + run.err());
        assertTrue(run.err().contains("Usage:"), run.err());
    }
}
