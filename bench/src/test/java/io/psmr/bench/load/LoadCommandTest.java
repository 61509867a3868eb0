package io.psmr.bench.load;

import io.psmr.bench.cli.CliRun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code psmr load} on its own: usage errors exit 2 naming the flag; short runs in both formats. */
class LoadCommandTest {

    /** What one {@code psmr load} printed and returned. */
    record Run(int exitCode, String out, String err) {
    }

    /** Runs {@code psmr load ARGS} in this JVM. */
    static Run run(String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = "load";
        System.arraycopy(args, 0, argv, 1, args.length);
        CliRun r = CliRun.of(argv);
        return new Run(r.exitCode(), r.out(), r.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--replicas 0|--replicas must be from 1 to",
        "--clients -3|--clients must be from 1 to",
        "--duration 10x|Invalid value for option '--duration': '10x' is not a duration: write a whole number with a unit ms, s, m or h",
        "--duration 10|Invalid value for option '--duration': '10' has no unit",
        "--duration 0s|--duration must be from 1ms to 24h, got 0ms",
        "--mode fastest|unknown mode 'fastest'; modes: sequential, cbase",
        "--mode keys|mode 'keys' is no longer a name; use keys-pairwise",
        "--mode bitmap|mode 'bitmap' is no longer a name; use bitmap-indexed",
        "--mode cbase --batch 10|--mode cbase runs batches of one command, got --batch 10",
        "--batch-size 10|--batch-size was renamed --batch",
        "--linger 5|Invalid value for option '--linger': '5' has no unit",
        "--linger 11s|--linger must be at most 10s, got 11s",
        "--workers 0|--workers must be from 1 to",
        "--batch 5000|--batch must be from 1 to 4095, got 5000",
        "--conflict 101|--conflict must be a percentage from 0 to 100, got 101",
        "--format xml|Invalid value for option '--format': expected text, csv or json, got 'xml'",
        "--format csv|--format must be text or json for psmr load, got 'csv'",
        "--format table|format 'table' was renamed text",
        "--read-fraction 0.7 --multi-put-fraction 0.5|--read-fraction plus --multi-put-fraction must be at most 1",
        "--value-size 0|--value-size must be from 1 to 16384",
        "--keys 2 --multi-put-keys 3|--multi-put-keys must be from 1 to 64 and at most --keys (2), got 3",
        "--window 0|--window must be from 1 to 1024",
        "--max-keys 0|--max-keys must be from 1 to 1000000000, got 0",
        "--max-bytes 0|--max-bytes must be from 1 to",
        "--max-keys 2 --max-bytes 40000|--max-bytes must be from 1 to 34816 (--max-keys 2 times the largest key and value), got 40000",
        "--max-bytes lots|Invalid value for option '--max-bytes'",
        "--stall-timeout 0s|--stall-timeout must be from 1ms to 1h, got 0ms",
        "--stall-timeout soon|Invalid value for option '--stall-timeout': 'soon' is not a duration",
        "--clients many|Invalid value for option '--clients'",
        "--bogus|Unknown option: '--bogus'"})
    void badFlagsAreUsageErrorsNamingTheFlag(String args, String message) {
        Run r = run(args.split(" "));
        assertEquals(2, r.exitCode(), "stderr: " + r.err());
        assertTrue(r.err().contains(message), "stderr should contain '" + message + "':\n" + r.err());
        assertTrue(r.err().contains("Usage: psmr load"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aShortJsonRunParsesAndItsDigestsAgree(@TempDir Path dir) throws Exception {
        Path history = dir.resolve("history.jsonl");
        Run r = run("--replicas", "3", "--clients", "8", "--duration", "2s", "--format", "json", "--keys", "20",
                "--conflict", "25", "--multi-put-fraction", "0.2", "--history", history.toString());
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        assertEquals(1, r.out().strip().lines().count(), "one JSON object on one line: " + r.out());
        JsonNode json = JSON.readTree(r.out().strip());
        long ops = json.get("ops").longValue();
        assertTrue(ops > 0, r.out());
        assertTrue(json.get("throughput_ops").doubleValue() > 0, r.out());
        assertTrue(json.get("p50_us").longValue() > 0 && json.get("p99_us").longValue() >= json.get("p50_us").longValue(), r.out());
        JsonNode digests = json.get("digests");
        assertEquals(3, digests.size(), r.out());
        assertEquals(1, java.util.stream.StreamSupport.stream(digests.spliterator(), false).distinct().count(), r.out());
        assertTrue(json.get("digests_agree").booleanValue(), r.out());

        // Every operation is in the history file, after one initial READ of every key, and the history
        // is linearizable per key.
        List<String> lines = Files.readAllLines(history, StandardCharsets.UTF_8);
        assertEquals(20L, json.get("initial_reads").longValue(), r.out());
        assertEquals(ops + json.get("unanswered").longValue() + 20, lines.size());
        java.util.Set<String> initiallyRead = new java.util.HashSet<>();
        for (String line : lines.subList(0, 20)) {
            JsonNode o = JSON.readTree(line);
            assertEquals("READ", o.get("op").textValue(), line);
            assertEquals("NOT_FOUND", o.get("status").textValue(), line); // an embedded store starts empty
            assertTrue(o.get("initial").booleanValue(), line);
            initiallyRead.add(o.get("key").textValue());
        }
        assertEquals(20, initiallyRead.size(), "each key read once first: " + initiallyRead);
        boolean sawValue = false;
        for (String line : lines.subList(20, lines.size())) {
            JsonNode o = JSON.readTree(line);
            for (String field : List.of("client", "op", "key", "value", "invoke_ns", "complete_ns", "status", "output")) {
                assertTrue(o.has(field), field + " missing in " + line);
            }
            if (!o.get("value").isNull()) {
                sawValue = true;
                assertTrue(o.get("value").textValue().matches("s0\\.c\\d+\\.\\d+(\\.\\d+)?\\.*"),
                        "value names session 0, client and op: " + line);
            }
        }
        assertTrue(sawValue, "no write in the history");
        List<OpRecord> ops2 = JsonLinesHistory.read(history);
        assertEquals(lines.size(), ops2.size());
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(ops2, null);
        assertTrue(v.linearizable(), () -> String.join("\n", v.violations()));
    }

    @Test
    void aShortTextRunPrintsTheReport() {
        Run r = run("--replicas", "2", "--clients", "4", "--duration", "500ms", "--mode", "rw-bitmap", "--workers", "1");
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        for (String s : List.of("acknowledged ops", "throughput", "p50", "p99", "p999", "replica 1", "replica 2",
                "digests agree")) {
            assertTrue(r.out().contains(s), "missing '" + s + "' in:\n" + r.out());
        }
    }

    /**
     * The issue's scenario, embedded: a store of 50 entries under a write-only load of 200 keys. Every
     * replica refuses the same writes FULL (decided in delivery order), so the run ends with equal digests
     * and the report counts FULL like any other status.
     */
    @Test
    void aTinyCapacityIsRefusedFullTheSameWayOnEveryReplica() throws Exception {
        Run r = run("--replicas", "2", "--clients", "16", "--duration", "1s", "--keys", "200", "--max-keys", "50",
                "--read-fraction", "0", "--multi-put-fraction", "0.5", "--workers", "2", "--format", "json");
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        JsonNode json = JSON.readTree(r.out().strip());
        JsonNode statuses = json.get("statuses");
        assertTrue(statuses.path("FULL").isIntegralNumber() && statuses.get("FULL").longValue() > 0, "no FULL refusal: " + r.out());
        assertTrue(statuses.path("OK").isIntegralNumber() && statuses.get("OK").longValue() > 0, "no write succeeded: " + r.out());
        assertTrue(!statuses.has("FAILED"), "a write failed instead of being refused: " + r.out());
        assertEquals(50L, json.get("max_keys").longValue(), r.out());
        assertEquals(50L * (16 + 64), json.get("max_bytes").longValue(), r.out()); // default: max-keys x (16 + --value-size)
        assertEquals(2, json.get("digests").size(), r.out());
        assertTrue(json.get("digests_agree").booleanValue(), r.out());

        Run text = run("--replicas", "1", "--clients", "4", "--duration", "300ms", "--keys", "20", "--max-keys", "5",
                "--max-bytes", "100", "--read-fraction", "0", "--workers", "1");
        assertEquals(0, text.exitCode(), "stdout: " + text.out() + "\nstderr: " + text.err());
        assertTrue(text.out().contains("store capacity: 5 entries, 100 key and value bytes"), text.out());
        assertTrue(text.out().matches("(?s).*acknowledged ops  \\d+ \\(.*FULL \\d+.*"), "FULL not counted:\n" + text.out());
    }

    /** Every MULTI_PUT of 64 values of 16 KiB exceeds the 1 MiB batch: TOO_LARGE, and the history says why. */
    @Test
    void theHistoryRecordsWhyAnOperationWasRefused(@TempDir Path dir) throws Exception {
        Path history = dir.resolve("h.jsonl");
        Run r = run("--replicas", "1", "--clients", "2", "--duration", "300ms", "--keys", "64", "--multi-put-fraction", "1",
                "--read-fraction", "0", "--multi-put-keys", "64", "--value-size", "16384", "--workers", "1", "--format", "json",
                "--history", history.toString());
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        List<OpRecord> refused = JsonLinesHistory.read(history).stream().filter(o -> o.op() == KvOp.MULTI_PUT).toList();
        assertTrue(!refused.isEmpty(), "no MULTI_PUT in the history");
        for (OpRecord o : refused) {
            assertEquals(KvStatus.TOO_LARGE, o.status(), o.toString());
            assertTrue(o.detail() != null && o.detail().contains("cannot fit in a batch of at most 1048576 bytes"), o.toString());
            assertEquals(64, o.keys().length, o.toString());
        }
    }

    static final ObjectMapper JSON = new ObjectMapper();
}
