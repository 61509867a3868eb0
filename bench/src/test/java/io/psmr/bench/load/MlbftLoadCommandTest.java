package io.psmr.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code psmr load --ordering mlbft}: MLBFT's flags are checked by name; a short run agrees and is linearizable. */
class MlbftLoadCommandTest {

    @Test
    void mlbftFlagsAreUsageErrorsNamingTheProblem() {
        assertUsage(LoadCommandTest.run("--ordering", "mlbft", "--replicas", "5"),
                "--ordering mlbft needs 3f+1 replicas with f >= 1 (4, 7, 10, ...) to tolerate f Byzantine ones, got --replicas 5");
        assertUsage(LoadCommandTest.run("--ordering", "mlbft", "--partitions", "1"), "--partitions must be from 2 to 64, got 1");
        assertUsage(LoadCommandTest.run("--ordering", "mlbft", "--partitions", "65"), "--partitions must be from 2 to 64, got 65");
        assertUsage(LoadCommandTest.run("--partitions", "4"), "--partitions is an MLBFT setting; --ordering local has none (use --ordering mlbft)");
        assertUsage(LoadCommandTest.run("--ordering", "mlbft", "--pillars", "2"),
                "--pillars is a PBFT setting; --ordering mlbft has none (use --ordering pbft)");
        assertUsage(LoadCommandTest.run("--ordering", "mlbft", "--max-keys", "100"),
                "--max-keys and --max-bytes do not apply to --ordering mlbft");
    }

    private static void assertUsage(LoadCommandTest.Run r, String message) {
        assertEquals(2, r.exitCode(), "stderr: " + r.err());
        assertTrue(r.err().contains(message), r.err());
        assertTrue(r.err().contains("Usage: psmr load"), r.err());
        assertEquals("", r.out());
    }

    /**
     * 20 keys over 4 partitions with 30 % MULTI_PUTs of 4 keys: most MULTI_PUTs are cross-border, and with 8 clients
     * their instances order many of them in opposite orders, so the replicas resolve deadlocks while they serve.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aShortRunWithCrossBorderMultiPutsAgreesAndItsHistoryIsLinearizable(@TempDir Path dir) throws Exception {
        Path history = dir.resolve("history.jsonl");
        LoadCommandTest.Run r = LoadCommandTest.run("--ordering", "mlbft", "--clients", "8", "--duration", "1s",
                "--format", "json", "--keys", "20", "--multi-put-fraction", "0.3", "--window", "4",
                "--history", history.toString());
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        JsonNode json = LoadCommandTest.JSON.readTree(r.out().strip());
        assertEquals("mlbft", json.get("ordering").textValue(), r.out());
        assertEquals(4, json.get("replicas").intValue(), r.out());
        assertEquals(4, json.get("partitions").intValue(), r.out());
        assertEquals("matching", json.get("reply_trust").textValue(), r.out());
        long ops = json.get("ops").longValue();
        assertTrue(ops > 0, r.out());
        assertTrue(json.get("statuses").get("OK").longValue() > 0, r.out());
        assertEquals(4, json.get("digests").size(), r.out());
        assertTrue(json.get("digests_agree").booleanValue(), r.out());

        List<OpRecord> records = JsonLinesHistory.read(history);
        assertEquals(ops + json.get("unanswered").longValue() + 20, records.size());
        assertTrue(records.stream().anyMatch(x -> x.op() == io.psmr.kvstore.KvOp.MULTI_PUT), "no MULTI_PUT in the history");
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(records, null);
        assertTrue(v.linearizable(), () -> String.join("\n", v.violations()));
    }
}
