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

/** {@code psmr load --ordering pbft}: PBFT's flags are checked by name; a short run agrees and is linearizable. */
class PbftLoadCommandTest {

    @Test
    void pbftFlagsAreUsageErrorsNamingTheProblem() {
        assertUsage(LoadCommandTest.run("--ordering", "pbft", "--replicas", "5"),
                "--ordering pbft needs 3f+1 replicas with f >= 1 (4, 7, 10, ...) to tolerate f Byzantine ones, got --replicas 5");
        assertUsage(LoadCommandTest.run("--ordering", "pbft", "--replicas", "1"),
                "--ordering pbft needs 3f+1 replicas with f >= 1 (4, 7, 10, ...) to tolerate f Byzantine ones, got --replicas 1");
        assertUsage(LoadCommandTest.run("--pillars", "2"), "--pillars is a PBFT setting; --ordering local has none (use --ordering pbft)");
        assertUsage(LoadCommandTest.run("--ordering", "ratis", "--leader-rotation", "fixed"),
                "--leader-rotation is a PBFT setting; --ordering ratis has none (use --ordering pbft)");
        assertUsage(LoadCommandTest.run("--ordering", "pbft", "--pillars", "0"), "--pillars must be from 1 to 64, got 0");
        assertUsage(LoadCommandTest.run("--ordering", "pbft", "--leader-rotation", "random"),
                "--leader-rotation must be rotating or fixed, got 'random'");
    }

    private static void assertUsage(LoadCommandTest.Run r, String message) {
        assertEquals(2, r.exitCode(), "stderr: " + r.err());
        assertTrue(r.err().contains(message), r.err());
        assertTrue(r.err().contains("Usage: psmr load"), r.err());
        assertEquals("", r.out());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aShortRunWithHotKeysAndMultiPutsAgreesAndItsHistoryIsLinearizable(@TempDir Path dir) throws Exception {
        Path history = dir.resolve("history.jsonl");
        LoadCommandTest.Run r = LoadCommandTest.run("--ordering", "pbft", "--pillars", "2", "--clients", "8", "--duration", "1s",
                "--format", "json", "--keys", "20", "--conflict", "25", "--multi-put-fraction", "0.2", "--window", "4",
                "--workers", "1", "--history", history.toString());
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        JsonNode json = LoadCommandTest.JSON.readTree(r.out().strip());
        assertEquals("pbft", json.get("ordering").textValue(), r.out());
        assertEquals(4, json.get("replicas").intValue(), r.out()); // 3f+1 with f=1 when --replicas is not given
        assertEquals(2, json.get("pillars").intValue(), r.out());
        assertEquals("matching", json.get("reply_trust").textValue(), r.out());
        long ops = json.get("ops").longValue();
        assertTrue(ops > 0, r.out());
        assertTrue(json.get("hot_writes").longValue() > 0, r.out());
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
