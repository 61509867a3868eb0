package io.psmr.bench.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The history file: one ASCII JSON object per line, read back into equal records, bad lines named. */
class JsonLinesHistoryTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void recordsRoundTripThroughTheFileOneAsciiLineEach(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("h.jsonl");
        byte[] odd = {'k', (byte) 0xE9, '"', '\n', 0};
        List<OpRecord> written = List.of(
                new OpRecord(1, 7, KvOp.READ, new byte[][] {b("k1")}, null, 10, 20, KvStatus.NOT_FOUND, null, null, null, true),
                new OpRecord(2, 4294967300L, KvOp.MULTI_PUT, new byte[][] {b("k1"), odd}, new byte[][] {b("v1"), b("v2")},
                        30, 40, KvStatus.TOO_LARGE, null, null, "cannot fit", false),
                new OpRecord(3, 9, KvOp.UPDATE, new byte[][] {odd}, new byte[][] {odd}, 50, 60, null, null, "timed out"),
                new OpRecord(1, 7, KvOp.READ, new byte[][] {b("k1")}, null, 70, 80, KvStatus.OK, b("v1"), null));
        try (JsonLinesHistory h = new JsonLinesHistory(file)) {
            written.forEach(h::record);
            assertEquals(4, h.written());
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        assertEquals(4, lines.size());
        assertTrue(lines.stream().allMatch(l -> l.chars().allMatch(c -> c >= 0x20 && c < 0x7F)), String.join("\n", lines));
        assertEquals("{\"client\":1,\"client_id\":7,\"op\":\"READ\",\"key\":\"k1\",\"value\":null,\"invoke_ns\":10,"
                + "\"complete_ns\":20,\"status\":\"NOT_FOUND\",\"output\":null,\"initial\":true}", lines.get(0));
        assertEquals(written.get(2).toJson(), lines.get(2));
        assertTrue(lines.get(2).contains("\"status\":\"UNKNOWN\"") && lines.get(2).contains("\"error\":\"timed out\""), lines.get(2));

        List<OpRecord> read = JsonLinesHistory.read(file);
        assertEquals(written.size(), read.size());
        for (int i = 0; i < written.size(); i++) {
            OpRecord w = written.get(i);
            OpRecord r = read.get(i);
            assertEquals(w.toJson(), r.toJson());
            assertArrayEquals(w.keys(), r.keys());
            assertArrayEquals(w.values(), r.values());
            assertArrayEquals(w.output(), r.output());
            assertEquals(w.status(), r.status());
            assertEquals(w.error(), r.error());
            assertEquals(w.detail(), r.detail());
            assertEquals(w.initial(), r.initial());
        }
        assertNull(read.get(2).status());
    }

    @Test
    void aBadLineIsAnErrorNamingTheFileTheLineAndTheProblem(@TempDir Path dir) throws Exception {
        String good = new OpRecord(1, 7, KvOp.READ, new byte[][] {b("k1")}, null, 10, 20, KvStatus.OK, b("v"), null).toJson();
        assertBad(dir, good + "\n{\"client\":1", "line 2: Unexpected end-of-input");
        assertBad(dir, good + "\n" + good + " {}", "line 2: Trailing token");
        assertBad(dir, good.replace("\"op\":\"READ\",", ""), "line 1: field 'op' is missing");
        assertBad(dir, good.replace("READ", "SCAN"), "line 1: field 'op' has unknown value 'SCAN'");
        assertBad(dir, good.replace("\"client\":1", "\"client\":\"one\""), "line 1: field 'client' must be an integer, got \"one\"");
        assertBad(dir, "\n[1]", "line 2: a history record must be a JSON object, got ARRAY");
    }

    private static void assertBad(Path dir, String text, String message) throws Exception {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JsonLinesHistory.read(file));
        assertTrue(e.getMessage().startsWith("history file " + file + " " + message), e.getMessage());
    }
}
