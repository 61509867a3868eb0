package io.psmr.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.proxy.load.LinearizabilityChecker;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.cli.LoadCommand;
import io.psmr.proxy.load.OpRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code psmr load} on its own: usage errors exit 2 naming the flag; short runs in both formats. */
class LoadCommandTest {

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

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--replicas 0|--replicas must be from 1 to",
        "--clients -3|--clients must be from 1 to",
        "--duration 10x|--duration must be a number with an optional unit",
        "--duration 0s|--duration must be at least 1ms",
        "--mode fastest|--mode must be bitmap, rw-bitmap, keys, cbase or sequential, got 'fastest'",
        "--workers 0|--workers must be from 1 to",
        "--batch 5000|--batch must be from 1 to 4095, got 5000",
        "--conflict 101|--conflict must be a percentage from 0 to 100, got 101",
        "--format xml|--format must be text or json, got 'xml'",
        "--read-fraction 0.7 --multi-put-fraction 0.5|--read-fraction plus --multi-put-fraction must be at most 1",
        "--value-size 0|--value-size must be from 1 to 16384",
        "--keys 2 --multi-put-keys 3|--multi-put-keys must be from 1 to 64 and at most --keys (2), got 3",
        "--window 0|--window must be from 1 to 1024",
        "--clients many|Invalid value for option '--clients'",
        "--bogus|Unknown option: '--bogus'"})
    void badFlagsAreUsageErrorsNamingTheFlag(String args, String message) {
        Run r = run(args.split(" "));
        assertEquals(2, r.exitCode(), "stderr: " + r.err());
        assertTrue(r.err().contains(message), "stderr should contain '" + message + "':\n" + r.err());
        assertTrue(r.err().contains("Usage: load"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aShortJsonRunParsesAndItsDigestsAgree(@TempDir Path dir) throws Exception {
        Path history = dir.resolve("history.jsonl");
        Run r = run("--replicas", "3", "--clients", "8", "--duration", "2s", "--format", "json", "--keys", "20",
                "--conflict", "25", "--multi-put-fraction", "0.2", "--history", history.toString());
        assertEquals(0, r.exitCode(), "stdout: " + r.out() + "\nstderr: " + r.err());
        assertEquals(1, r.out().strip().lines().count(), "one JSON object on one line: " + r.out());
        Map<String, Object> json = MiniJson.object(r.out().strip());
        long ops = (Long) json.get("ops");
        assertTrue(ops > 0, r.out());
        assertTrue(((Number) json.get("throughput_ops")).doubleValue() > 0, r.out());
        assertTrue((Long) json.get("p50_us") > 0 && (Long) json.get("p99_us") >= (Long) json.get("p50_us"), r.out());
        List<?> digests = (List<?>) json.get("digests");
        assertEquals(3, digests.size(), r.out());
        assertEquals(1, digests.stream().distinct().count(), r.out());
        assertEquals(Boolean.TRUE, json.get("digests_agree"));

        // Every operation is in the history file, and the history is linearizable per key.
        List<String> lines = Files.readAllLines(history, StandardCharsets.UTF_8);
        assertEquals(ops + (Long) json.get("unanswered"), lines.size());
        List<OpRecord> ops2 = new ArrayList<>();
        for (String line : lines) {
            Map<String, Object> o = MiniJson.object(line);
            for (String field : List.of("client", "op", "key", "value", "invoke_ns", "complete_ns", "status", "output")) {
                assertTrue(o.containsKey(field), field + " missing in " + line);
            }
            ops2.add(record(o));
        }
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

    /** An OpRecord back from one history line. */
    @SuppressWarnings("unchecked")
    static OpRecord record(Map<String, Object> o) {
        KvOp op = KvOp.valueOf((String) o.get("op"));
        byte[][] keys;
        byte[][] values = null;
        if (op == KvOp.MULTI_PUT) {
            List<Object> ks = (List<Object>) o.get("keys");
            List<Object> vs = (List<Object>) o.get("values");
            keys = new byte[ks.size()][];
            values = new byte[vs.size()][];
            for (int i = 0; i < ks.size(); i++) {
                keys[i] = bytes((String) ks.get(i));
                values[i] = bytes((String) vs.get(i));
            }
        } else {
            keys = new byte[][] {bytes((String) o.get("key"))};
            if (o.get("value") != null) {
                values = new byte[][] {bytes((String) o.get("value"))};
            }
        }
        String status = (String) o.get("status");
        return new OpRecord(((Long) o.get("client")).intValue(), (Long) o.get("client_id"), op, keys, values,
                (Long) o.get("invoke_ns"), (Long) o.get("complete_ns"),
                status.equals("UNKNOWN") ? null : KvStatus.valueOf(status), bytes((String) o.get("output")),
                (String) o.get("error"));
    }

    static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
