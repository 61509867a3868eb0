package io.psmr.bench.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's table, JSON and charts from synthetic scenario results: no cluster. */
class FaultReportTest {

    @TempDir
    Path dir;

    private static final FaultSettings SETTINGS = new FaultSettings(4, 2, LeaderRotation.ROTATING, List.of(io.psmr.ordering.pbft.LeaderSelection.BLACKLIST), 16,
            Duration.ofSeconds(4), Duration.ofSeconds(1), Duration.ofSeconds(6), List.of(FaultScenario.CRASH, FaultScenario.PAUSE,
            FaultScenario.byzantine(ByzantineMode.SILENT)), 1, Path.of("results"), 2);

    /** A scenario of 100 ops/s fault-free whose faulty window [from, from + 6 s) holds {@code faultyPerBucket}. */
    private static ScenarioResult result(FaultScenario s, long injected, long onset, long from, long faultyPerBucket,
                                         Long healed, String error) {
        int end = (int) (from / 100) + 60;
        long[] b = new long[end];
        Arrays.fill(b, 10);
        for (int i = (int) (from / 100); i < end; i++) {
            b[i] = faultyPerBucket;
        }
        double free = FaultMetrics.opsPerSecond(b, 10, 40, 100);
        double faulty = FaultMetrics.opsPerSecond(b, (int) (from / 100), end, 100);
        var rec = FaultMetrics.recoveryMillis(b, (int) (from / 100), end, 100, free);
        var first = FaultMetrics.firstBackMillis(b, (int) (from / 100), end, 100, free);
        return new ScenarioResult(s.name(), "blacklist", s.kind().name().toLowerCase(java.util.Locale.ROOT), List.of("replica-2"), s.describe(List.of("replica-2")),
                error, 5000L, 100, b, FaultMetrics.perSecond(b, 100), 1000, 4000, injected, onset, from, end * 100L, healed,
                free, faulty, faulty / free, rec.isPresent() ? rec.getAsLong() : null, rec.isPresent(),
                first.isPresent() ? first.getAsLong() : null, 0.0,
                FaultMetrics.shareBelow(b, (int) (from / 100), end, 100, free), 2.0, 9.0, 3.0, 20.0);
    }

    private FaultReport report() {
        return FaultReport.of(SETTINGS, List.of(
                result(FaultScenario.CRASH, 4000, 4000, 4000, 10, null, null),
                result(FaultScenario.PAUSE, 4000, 4000, 4000, 3, 10000L, null),
                result(FaultScenario.byzantine(ByzantineMode.SILENT), 4000, 9420, 9500, 9, null, "the load stalled")));
    }

    @Test
    void theTableGivesFractionRecoveryAndFailures() {
        StringWriter w = new StringWriter();
        report().table(new PrintWriter(w));
        List<String> lines = w.toString().lines().toList();
        assertTrue(lines.get(0).startsWith("fault ") && lines.get(0).contains("first 0.8")
                && lines.get(0).contains("holds 0.8") && lines.get(0).contains("below 0.8 f/F"), lines.get(0));
        assertTrue(lines.get(1).matches("crash\\s+replica-2\\s+100\\.0\\s+100\\.0\\s+1\\.00\\s+0\\.0 s\\s+0\\.0 s"
                + "\\s+0%/0%\\s+2\\.0/9\\.0\\s+3\\.0/20\\.0"), lines.get(1));
        assertTrue(lines.get(2).matches("pause\\s+replica-2\\s+100\\.0\\s+30\\.0\\s+0\\.30\\s+never\\s+never\\s+0%/100%\\s.*"),
                lines.get(2));
        assertTrue(lines.get(3).matches("silent\\s+replica-2\\s+100\\.0\\s+90\\.0\\s+0\\.90\\s+0\\.0 s\\s+0\\.0 s\\s.*"),
                lines.get(3));
        assertEquals("silent FAILED: the load stalled", lines.get(4));
        assertEquals(1, report().failed().size());
    }

    @Test
    void theJsonHoldsTheSettingsAndEveryScenario() throws Exception {
        FaultReport r = report();
        JsonNode json = new ObjectMapper().readTree(r.toJson());
        assertEquals(2, json.get("cores").asInt());
        assertEquals("rotating", json.get("leaderRotation").asText());
        assertEquals(0.8, json.get("recoveredFraction").asDouble(), 1e-12);
        assertEquals(1000, json.get("smoothingMillis").asLong());
        assertEquals(1000, json.get("warmupMillis").asLong());
        assertEquals(3, json.get("scenarios").size());
        JsonNode pause = json.get("scenarios").get(1);
        assertTrue(pause.get("recoveryMillis").isNull());
        assertEquals(10000, pause.get("healedMillis").asLong());
        FaultReport back = new ObjectMapper().readValue(r.toJson(), FaultReport.class);
        assertEquals(r.scenarios().size(), back.scenarios().size());
        assertArrayEquals(r.scenarios().get(1).buckets(), back.scenarios().get(1).buckets());
        assertEquals(r.scenarios().get(2).error(), back.scenarios().get(2).error());
        List<Path> files = r.write(dir);
        assertTrue(Files.size(files.get(0)) > 0 && Files.readString(files.get(1)).contains("| pause |"));
    }

    @Test
    void theChartsMarkTheOnsetTheKillAndTheSigcont() throws Exception {
        FaultReport r = report();
        List<Path> files = FaultCharts.write(dir, r);
        assertEquals(dir.resolve(FaultCharts.ALL_FILE), files.get(0));
        assertEquals(4, files.size());
        for (Path f : files) {
            assertTrue(Files.size(f) > 0, f.toString());
        }
        var crash = FaultCharts.chart(r.scenarios().get(0), r);
        assertNotNull(crash.getSeries("onset at 4.0 s"));
        assertNotNull(crash.getSeries("0.8 x fault-free"));
        var pause = FaultCharts.chart(r.scenarios().get(1), r);
        assertNotNull(pause.getSeries("SIGCONT at 10.0 s"));
        var silent = FaultCharts.chart(r.scenarios().get(2), r);
        assertNotNull(silent.getSeries("injected at 4.0 s"), "an injection before the onset is marked");
        assertEquals(9.42, silent.getSeries("onset at 9.4 s").getXData()[0], 1e-9);
    }
}
