package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import io.psmr.kvstore.KvStatus;
import io.psmr.bench.load.JsonLinesHistory;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.bench.load.OpRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psmr cluster …}, {@code psmr node} and {@code psmr load --cluster} through the command
 * line: usage errors exit 2 naming the flag; one small real cluster (1 acceptor, 1 replica) goes
 * through start, status, load, a load stalled by the acceptor's death, kill, a refused replica
 * restart, stop, a refused start over it (nothing changed), a refused --resume and a --force start;
 * a one-peer Ratis cluster is stopped and resumed with its data.
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
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "bft"), "Invalid value for option '--ordering': unknown ordering 'bft'; orderings: local, ringpaxos, ratis, pbft");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "pbft", "--replicas", "5"),
                "--replicas of a pbft cluster must be 3f+1 (4, 7, 10, ... 64), got 5");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--pillars", "2"), "--pillars is a PBFT setting; a ringpaxos cluster has none");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--leader-selection", "all"),
                "--leader-selection is a PBFT setting; a ringpaxos cluster has none");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "pbft", "--leader-selection", "some"),
                "--leader-selection must be blacklist or all, got 'some'");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "local"), "--ordering must be ringpaxos, ratis or pbft, got 'local'");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "mlbft"),
                "--ordering mlbft runs in one JVM only: use ./psmr load --ordering mlbft or ./psmr bench e2e --ordering mlbft");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--ordering", "ratis", "--acceptors", "3"),
                "--acceptors is a Ring Paxos setting; a ratis cluster has none");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--mode", "fast"), "unknown mode 'fast'; modes: sequential, cbase, keys-pairwise, keys-hashed, bitmap-monitor, bitmap-indexed, rw-bitmap");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--tick", "0ms"), "--tick must be from 1ms to 1s, got 0ms");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--tick", "10"), "Invalid value for option '--tick': '10' has no unit");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--tick-ms", "10"), "--tick-ms was renamed --tick");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--timeout", "30"), "Invalid value for option '--timeout': '30' has no unit");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--timeout", "0s"), "--timeout must be from 1s to 10m, got 0ms");
        assertUsage(CliRun.of("cluster", "restart", "--dir", dir.toString(), "--node", "acceptor-0", "--timeout", "11m"),
                "--timeout must be from 1s to 10m, got 11m");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--mode", "keys"), "mode 'keys' is no longer a name; use keys-pairwise");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--max-keys", "0"), "--max-keys must be from 1 to 1000000000, got 0");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--max-bytes", "0"), "--max-bytes must be from 1 to");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--max-keys", "2", "--max-bytes", "40000"),
                "--max-bytes must be from 1 to 34816 (--max-keys 2 times the largest key and value), got 40000");
        assertUsage(CliRun.of("cluster", "start", "--dir", dir.toString(), "--max-bytes", "lots"), "Invalid value for option '--max-bytes'");
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
        assertFailure(again, "a cluster is already running in");
        assertTrue(again.err().contains("--force") && again.err().contains("--resume"), again.err());
        assertFailure(CliRun.of("cluster", "start", "--dir", d, "--force"), "a cluster is already running in");

        assertUsage(CliRun.of("load", "--cluster", d, "--mode", "keys-hashed"), "--mode cannot be combined with --cluster");
        assertUsage(CliRun.of("load", "--cluster", d, "--max-keys", "5"), "--max-keys cannot be combined with --cluster");
        CliRun load = CliRun.of("load", "--cluster", d, "--clients", "4", "--keys", "50", "--duration", "1s", "--format", "json");
        assertEquals(0, load.exitCode(), load.err());
        JsonNode report = new ObjectMapper().readTree(load.out().strip());
        assertEquals(1, report.get("digests").size(), load.out());
        assertEquals(1, report.get("replicas").intValue(), load.out());

        // The only acceptor dies: nothing is ordered, and the load says so within its stall timeout.
        assertEquals(0, CliRun.of("cluster", "kill", "--dir", d, "--node", "coordinator").exitCode());
        Path history = dir.getParent().resolve(dir.getFileName() + "-stalled.jsonl");
        long begin = System.nanoTime();
        CliRun stalled = CliRun.of("load", "--cluster", d, "--clients", "2", "--keys", "10", "--duration", "60s",
                "--stall-timeout", "2s", "--history", history.toString());
        double took = (System.nanoTime() - begin) / 1e9;
        assertEquals(4, stalled.exitCode(), "a stall exits 4; stderr:\n" + stalled.err());
        assertTrue(stalled.err().contains("psmr load: stalled while reading every key's initial value: no operation completed for "),
                stalled.err());
        assertTrue(stalled.err().contains("(stall timeout 2 s); 2 operations outstanding; cannot hear from: acceptor-0 (process not running);"
                + " the history of what completed is in " + history), stalled.err());
        assertTrue(took < 2 + 20, "the stalled load took " + took + " s");
        List<OpRecord> records = JsonLinesHistory.read(history);
        assertEquals(2, records.stream().filter(o -> !o.acknowledged()).count(), records.toString());
        Files.delete(history);
        assertEquals(0, CliRun.of("cluster", "restart", "--dir", d, "--node", "acceptor-0").exitCode());

        CliRun status = CliRun.of("cluster", "status", "--dir", d);
        assertEquals(0, status.exitCode(), status.err());
        assertTrue(status.out().contains("replica-1") && status.out().contains("serving"), status.out());
        CliRun healthy = CliRun.of("cluster", "status", "--dir", d, "--format", "json");
        assertEquals(0, healthy.exitCode(), healthy.err());
        JsonNode health = new ObjectMapper().readTree(healthy.out());
        assertTrue(health.get("healthy").booleanValue(), healthy.out());
        assertEquals("acceptor-0", health.get("leader").textValue(), healthy.out());
        assertEquals("coord", health.get("nodes").get(0).get("state").textValue(), healthy.out());
        assertTrue(health.get("nodes").get(1).get("instance").isNumber(), healthy.out());

        assertUsage(CliRun.of("cluster", "kill", "--dir", d, "--node", "replica-9"), "no node 'replica-9'");
        CliRun kill = CliRun.of("cluster", "kill", "--dir", d, "--node", "replica-1");
        assertEquals(0, kill.exitCode(), kill.err());
        assertEquals("killed replica-1", kill.out().trim());
        assertFailure(CliRun.of("cluster", "kill", "--dir", d, "--node", "replica-1"), "node replica-1 is not running");
        CliRun unverified = CliRun.of("load", "--cluster", d, "--clients", "2", "--duration", "200ms");
        assertEquals(1, unverified.exitCode(), unverified.out());
        assertTrue(unverified.err().contains("no replica of the cluster in " + dir + " is alive"), unverified.err());
        // A Ring Paxos replica comes back (from its latest checkpoint, or from the start of the log).
        CliRun restarted = CliRun.of("cluster", "restart", "--dir", d, "--node", "replica-1");
        assertEquals(0, restarted.exitCode(), restarted.err());
        CliRun again2 = CliRun.of("load", "--cluster", d, "--clients", "2", "--keys", "10", "--duration", "300ms");
        assertEquals(0, again2.exitCode(), again2.err());

        CliRun stop = CliRun.of("cluster", "stop", "--dir", d);
        assertEquals(0, stop.exitCode(), stop.err());
        assertEquals("stopped 2 nodes: acceptor-0, replica-1", stop.out().trim());
        CliRun after = CliRun.of("cluster", "status", "--dir", d);
        assertTrue(after.out().contains("stopped"), after.out());
        assertEquals(1, after.exitCode(), "a stopped cluster is not healthy");
        assertEquals("psmr cluster status: not serving: acceptor-0 (stopped), replica-1 (stopped)", after.err().strip());

        // --resume brings the stopped cluster back from its data; then it is stopped again.
        CliRun resumed = CliRun.of("cluster", "start", "--dir", d, "--resume");
        assertEquals(0, resumed.exitCode(), resumed.err());
        assertEquals(0, CliRun.of("cluster", "stop", "--dir", d).exitCode());

        // A stopped cluster is never wiped without --force.
        Map<Path, Long> before = files(dir);
        String descriptor = Files.readString(dir.resolve("cluster.json"));
        CliRun refused = CliRun.of("cluster", "start", "--dir", d, "--acceptors", "1", "--replicas", "1");
        assertFailure(refused, dir.toAbsolutePath().normalize() + " already holds a cluster (cluster.json, data/, logs/); "
                + "nothing was changed: pass --force to delete it and start afresh, or --resume to start it again from its data");
        assertUsage(CliRun.of("cluster", "start", "--dir", d, "--resume", "--replicas", "3", "--mode", "bitmap-indexed"),
                "--replicas 3 (cluster.json: 1) contradicts it");
        assertUsage(CliRun.of("cluster", "start", "--dir", d, "--force", "--resume"), "--force and --resume cannot be combined");
        assertEquals(before, files(dir), "a refused start changed files");
        assertEquals(descriptor, Files.readString(dir.resolve("cluster.json")));

        CliRun forced = CliRun.of("cluster", "start", "--dir", d, "--force", "--acceptors", "1", "--replicas", "1", "--workers", "1",
                "--max-keys", "100");
        assertEquals(0, forced.exitCode(), forced.err());
        assertTrue(forced.out().startsWith("--force: deleted the old cluster in " + dir.toAbsolutePath().normalize()
                + " (cluster.json, data/, logs/, status/"), forced.out());
        // The old acceptor log (two starts) is gone: the new one holds one start.
        assertEquals(1, Files.readAllLines(dir.resolve("logs/acceptor-0.log")).stream().filter(l -> l.contains(" listening on ")).count());
    }

    /**
     * A stopped one-peer Ratis cluster comes back with --resume keeping its data: the second load's
     * initial reads see values the first load (session 1) wrote, and its history, starting from
     * them, checks as linearizable.
     */
    @Test
    void aStoppedRatisClusterResumesWithItsData() throws Exception {
        String d = dir.toString();
        CliRun start = CliRun.of("cluster", "start", "--dir", d, "--ordering", "ratis", "--replicas", "1", "--workers", "1",
                "--max-keys", "100");
        assertEquals(0, start.exitCode(), start.err());
        Path h1 = dir.getParent().resolve(dir.getFileName() + "-h1.jsonl");
        Path h2 = dir.getParent().resolve(dir.getFileName() + "-h2.jsonl");
        try {
            CliRun first = CliRun.of("load", "--cluster", d, "--clients", "4", "--keys", "20", "--read-fraction", "0.2",
                    "--duration", "1s", "--history", h1.toString());
            assertEquals(0, first.exitCode(), first.err());
            assertEquals(0, CliRun.of("cluster", "stop", "--dir", d).exitCode());

            assertUsage(CliRun.of("cluster", "start", "--dir", d, "--resume", "--ordering", "ringpaxos"),
                    "--ordering ringpaxos (cluster.json: ratis) contradicts it");
            CliRun resumed = CliRun.of("cluster", "start", "--dir", d, "--resume", "--ordering", "ratis");
            assertEquals(0, resumed.exitCode(), resumed.err());
            assertTrue(resumed.out().startsWith("resumed 1 nodes from " + dir.toAbsolutePath().normalize() + " (replica-1)"),
                    resumed.out());

            CliRun second = CliRun.of("load", "--cluster", d, "--clients", "2", "--keys", "20", "--duration", "300ms",
                    "--history", h2.toString());
            assertEquals(0, second.exitCode(), second.err());
            List<OpRecord> history = JsonLinesHistory.read(h2);
            long fromFirstRun = 0;
            for (OpRecord o : history) {
                if (o.initial() && o.status() == KvStatus.OK) {
                    assertTrue(OpRecord.text(o.output()).startsWith("s1.c"), o.toString());
                    fromFirstRun++;
                }
                if (o.values() != null) {
                    assertTrue(OpRecord.text(o.values()[0]).startsWith("s2.c"), o.toString());
                }
            }
            assertTrue(fromFirstRun > 0, "no key written by the first run was read after --resume");
            LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, null);
            assertTrue(v.linearizable(), () -> String.join("\n", v.violations()));
        } finally {
            Files.deleteIfExists(h1);
            Files.deleteIfExists(h2);
        }
    }

    /** Every regular file under {@code root} with its size and modification time folded into one number. */
    private static Map<Path, Long> files(Path root) throws IOException {
        Map<Path, Long> m = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                if (!p.getFileName().toString().equals("cluster.lock")) {
                    m.put(root.relativize(p), Files.size(p) * 1_000_003L + Files.getLastModifiedTime(p).toMillis());
                }
            }
        }
        return m;
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
