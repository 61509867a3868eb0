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
import picocli.CommandLine;

/** {@code psmr load --ordering}: a bad value exits 2 naming the flag; a short run over Ratis. */
class RatisLoadCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cl = new CommandLine(new LoadCommand());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void anUnknownOrderingIsAUsageErrorNamingTheFlagAndTheChoices() {
        Run r = run("--ordering", "paxos");
        assertEquals(2, r.exitCode(), "stderr: " + r.err());
        assertTrue(r.err().contains("--ordering must be local or ratis, got 'paxos'"), r.err());
        assertTrue(r.err().contains("Usage: load"), r.err());
        assertEquals("", r.out());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aShortRunOverRatisAgreesAndItsHistoryIsLinearizable(@TempDir Path dir) throws Exception {
        Path history = dir.resolve("history.jsonl");
        Run r = run("--ordering", "RATIS", "--replicas", "3", "--clients", "8", "--duration", "1s", "--format", "json",
                "--keys", "20", "--conflict", "25", "--window", "4", "--history", history.toString());
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        JsonNode json = LoadCommandTest.JSON.readTree(r.out().strip());
        assertEquals("ratis", json.get("ordering").textValue(), r.out());
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
}
