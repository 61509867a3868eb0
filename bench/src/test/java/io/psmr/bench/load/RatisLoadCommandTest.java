package io.psmr.bench.load;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code psmr load --ordering}: a bad value exits 2 naming the flag; a short run over Ratis. */
class RatisLoadCommandTest {

    @Test
    void anUnknownOrderingIsAUsageErrorNamingTheFlagAndTheChoices() {
        LoadCommandTest.Run r = LoadCommandTest.run("--ordering", "paxos");
        assertEquals(2, r.exitCode(), "stderr: " + r.err());
        assertTrue(r.err().contains("Invalid value for option '--ordering': ordering 'paxos' is no longer a name; use ringpaxos"), r.err());
        assertTrue(r.err().contains("Usage: psmr load"), r.err());
        LoadCommandTest.Run upper = LoadCommandTest.run("--ordering", "RATIS");
        assertEquals(2, upper.exitCode(), "stderr: " + upper.err());
        assertTrue(upper.err().contains("ordering 'RATIS' must be written in lower case: ratis"), upper.err());
        LoadCommandTest.Run paxos = LoadCommandTest.run("--ordering", "ringpaxos");
        assertEquals(2, paxos.exitCode(), "stderr: " + paxos.err());
        assertTrue(paxos.err().contains("--ordering ringpaxos runs as separate processes"), paxos.err());
        assertEquals("", r.out());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aShortRunOverRatisAgreesAndItsHistoryIsLinearizable(@TempDir Path dir) throws Exception {
        Path history = dir.resolve("history.jsonl");
        LoadCommandTest.Run r = LoadCommandTest.run("--ordering", "ratis", "--replicas", "3", "--clients", "8", "--duration", "1s", "--format", "json",
                "--keys", "20", "--conflict", "25", "--window", "4", "--history", history.toString());
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        JsonNode json = LoadCommandTest.JSON.readTree(r.out().strip());
        assertEquals("ratis", json.get("ordering").textValue(), r.out());
        assertEquals("sync", json.get("ratis_durability").textValue(), "durable unless asked: " + r.out());
        long ops = json.get("ops").longValue();
        assertTrue(ops > 0, r.out());
        assertEquals(3, json.get("digests").size(), r.out());
        assertTrue(json.get("digests_agree").booleanValue(), r.out());

        List<OpRecord> records = JsonLinesHistory.read(history);
        assertEquals(20L, json.get("initial_reads").longValue(), r.out()); // --history reads every key first
        assertEquals(ops + json.get("unanswered").longValue() + 20, records.size());
        assertEquals(20, records.stream().filter(OpRecord::initial).count());
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(records, null);
        assertTrue(v.linearizable(), () -> String.join("\n", v.violations()));
    }

    @Test
    void aBadOrMisplacedRatisDurabilityIsAUsageErrorNamingIt() {
        LoadCommandTest.Run async = LoadCommandTest.run("--ordering", "ratis", "--ratis-durability", "async-flush");
        assertEquals(2, async.exitCode(), "stderr: " + async.err());
        assertTrue(async.err().contains("--ratis-durability: unknown Ratis durability 'async-flush': Ratis' async-flush is not "
                + "offered (it may acknowledge entries still in a peer's write buffer); durabilities: sync, unsafe-flush"),
                async.err());
        LoadCommandTest.Run local = LoadCommandTest.run("--ratis-durability", "unsafe-flush");
        assertEquals(2, local.exitCode(), "stderr: " + local.err());
        assertTrue(local.err().contains("--ratis-durability is a Ratis setting; --ordering local has none (use --ordering ratis)"),
                local.err());
        assertEquals("", async.out() + local.out());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anUnsafeFlushRunSaysSoAndStillAgrees() throws Exception {
        LoadCommandTest.Run r = LoadCommandTest.run("--ordering", "ratis", "--ratis-durability", "unsafe-flush", "--clients", "4",
                "--duration", "500ms", "--keys", "20", "--window", "2");
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        assertTrue(r.out().contains("(embedded, Apache Ratis, log unsafe-flush (not durable: docs/integration.md))"), r.out());
        assertTrue(r.out().contains("digests agree"), r.out());
    }
}
