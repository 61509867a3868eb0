package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cluster start --byzantine}: every refusal exits 2 with the usage and names the problem; nothing is written. */
class ClusterByzantineUsageTest {

    @TempDir
    Path dir;

    private CliRun start(String... extra) {
        String[] args = new String[4 + extra.length];
        args[0] = "cluster";
        args[1] = "start";
        args[2] = "--dir";
        args[3] = dir.toString();
        System.arraycopy(extra, 0, args, 4, extra.length);
        return CliRun.of(args);
    }

    @Test
    void badByzantineFlagsExit2AndNameTheProblem() {
        assertUsage(start("--byzantine", "replica-1=silent"), "--byzantine is a PBFT setting; a ringpaxos cluster has none");
        assertUsage(start("--ordering", "ratis", "--byzantine", "replica-1=silent"),
                "--byzantine is a PBFT setting; a ratis cluster has none");
        assertUsage(start("--ordering", "pbft", "--byzantine", "replica-5=silent"),
                "--byzantine: no replica 'replica-5' in a cluster of 4 (replica-1 to replica-4)");
        assertUsage(start("--ordering", "pbft", "--byzantine", "acceptor-0=silent"),
                "--byzantine: no replica 'acceptor-0' in a cluster of 4 (replica-1 to replica-4)");
        assertUsage(start("--ordering", "pbft", "--byzantine", "replica-2=evil"),
                "--byzantine replica-2: unknown Byzantine mode 'evil'; the modes are silent, equivocating-leader, forged-macs,"
                        + " wrong-digests, replays, lying-view-change, wrong-checkpoints, foreign-empties, slow-leader, wrong-replies");
        assertUsage(start("--ordering", "pbft", "--byzantine", "replica-2"), "--byzantine must be replica-N=MODE, got 'replica-2'");
        assertUsage(start("--ordering", "pbft", "--byzantine", "replica-2=silent", "--byzantine", "replica-3=replays"),
                "--byzantine names 2 replicas, but 4 replicas tolerate f = 1 Byzantine ones");
        assertUsage(start("--ordering", "pbft", "--byzantine", "replica-2=silent", "--byzantine", "replica-2=replays"),
                "--byzantine names replica-2 twice");
        assertUsage(start("--ordering", "pbft", "--resume", "--byzantine", "replica-2=silent"),
                "--byzantine cannot be combined with --resume: the Byzantine replicas are those cluster.json names");
        assertFalse(Files.exists(dir.resolve("cluster.json")), "nothing written");
        assertFalse(Files.exists(dir.resolve("keys")), "no keys generated");
    }

    private static void assertUsage(CliRun run, String message) {
        assertEquals(2, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains(message), "expected '" + message + "' in:\n" + run.err());
        assertTrue(run.err().contains("Usage:"), run.err());
    }
}
