package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psmr cluster …}, {@code psmr node} and {@code psmr load --cluster} through the command
 * line: usage errors exit 2 naming the flag, and one small real cluster (1 acceptor, 1 replica)
 * goes through start, status, load, kill, a refused replica restart, and stop.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterCommandTest {

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (Files.exists(dir.resolve("cluster.json"))) {
            CliRun.of("cluster", "stop", "--dir", dir.toString());
        }
    }

    @Test
    void usageErrorsExit2AndNameTheProblem() {
        assertUsage(CliRun.of("cluster"), "missing command");
        assertUsage(CliRun.of("cluster", "start"), "--dir");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--acceptors", "0"), "--acceptors must be from 1 to 15, got 0");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "pbft"), "--ordering must be ringpaxos or ratis, got 'pbft'");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "ratis", "--acceptors", "3"),
                "--acceptors is a Ring Paxos setting; a ratis cluster has none");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--mode", "fast"), "--mode must be bitmap");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--tick-ms", "0"), "--tick-ms must be from 1 to 1000");
        assertUsage(CliRun.of("cluster", "status", "--dir", dir.toString()), "cluster.json does not exist");
        assertUsage(CliRun.of("cluster", "kill", "--dir", dir.toString()), "--node");
        assertUsage(CliRun.of("cluster", "frobnicate", "--dir", dir.toString()), "frobnicate");
        assertUsage(CliRun.of("node", "--dir", dir.toString(), "--name", "acceptor-0"), "cluster.json does not exist");
        assertUsage(CliRun.of("load", "--cluster", dir.toString()), "--cluster: no cluster in");
    }

    @Test
    void aSmallClusterStartsServesLoadAndStops() throws Exception {
        String d = dir.toString();
        CliRun start = CliRun.of("cluster", "start", "--dir", d, "--acceptors", "1", "--replicas", "1", "--workers", "1",
                "--max-keys", "100");
        assertEquals(0, start.exitCode(), start.err());
        assertTrue(start.out().contains("coordinator: acceptor-0"), start.out());
        assertTrue(Files.exists(dir.resolve("cluster.json")));

        CliRun again = CliRun.of("cluster", "start", "--dir", d);
        assertEquals(1, again.exitCode(), again.out());
        assertTrue(again.err().contains("a cluster is already running in"), again.err());

        assertUsage(CliRun.of("load", "--cluster", d, "--mode", "keys"), "--mode cannot be combined with --cluster");
        CliRun load = CliRun.of("load", "--cluster", d, "--clients", "4", "--keys", "50", "--duration", "1s", "--format", "json");
        assertEquals(0, load.exitCode(), load.err());
        assertTrue(load.out().contains("\"digests\""), load.out());
        assertTrue(load.out().contains("\"replicas\":1") || load.out().contains("\"replicas\": 1"), load.out());

        CliRun status = CliRun.of("cluster", "status", "--dir", d);
        assertEquals(0, status.exitCode(), status.err());
        assertTrue(status.out().contains("replica-1") && status.out().contains("serving"), status.out());

        assertUsage(CliRun.of("cluster", "kill", "--dir", d, "--node", "replica-9"), "no node 'replica-9'");
        CliRun kill = CliRun.of("cluster", "kill", "--dir", d, "--node", "replica-1");
        assertEquals(0, kill.exitCode(), kill.err());
        assertEquals("killed replica-1", kill.out().trim());
        assertFailure(CliRun.of("cluster", "kill", "--dir", d, "--node", "replica-1"), "node replica-1 is not running");
        assertFailure(CliRun.of("cluster", "restart", "--dir", d, "--node", "replica-1"), "no state transfer yet");
        CliRun unverified = CliRun.of("load", "--cluster", d, "--clients", "2", "--duration", "200ms");
        assertEquals(1, unverified.exitCode(), unverified.out());
        assertTrue(unverified.err().contains("no replica of the cluster in " + dir + " is alive"), unverified.err());

        CliRun stop = CliRun.of("cluster", "stop", "--dir", d);
        assertEquals(0, stop.exitCode(), stop.err());
        assertEquals("stopped 1 nodes: acceptor-0", stop.out().trim());
        CliRun after = CliRun.of("cluster", "status", "--dir", d);
        assertTrue(after.out().contains("stopped"), after.out());
    }

    private static void assertFailure(CliRun run, String message) {
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains(message), "expected '" + message + "' in:\n" + run.err());
        assertTrue(!run.err().contains("Usage:"), "a state error is not a usage error:\n" + run.err());
    }

    private static void assertUsage(CliRun run, String message) {
        assertEquals(2, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains(message), "expected '" + message + "' in:\n" + run.err());
        assertTrue(run.err().contains("Usage:"), run.err());
    }
}
