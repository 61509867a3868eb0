package io.psmr.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psmr bench faults --faults crash} on a real 4-replica PBFT process cluster, 4 s fault-free and 6 s faulty:
 * the report's structure (the table, faults.json's fields, a timeline as long as the run with the onset marked, the
 * PNGs written). Asserts structure, never speed.
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FaultsProcessTest {

    @TempDir
    Path out;

    @Test
    void aCrashRunReportsItsTimelineAndOnset() throws Exception {
        long seed = Long.getLong("psmr.seed", 7L);
        String context = "seed " + seed + " (-Dpsmr.seed=S), results in " + out;
        System.out.println("FaultsProcessTest " + context);
        CliRun r = CliRun.of("bench", "faults", "--faults", "crash", "--fault-free", "4s", "--faulty", "6s",
                "--clients", "4", "--seed", Long.toString(seed), "--out", out.toString(), "--quiet");
        assertEquals(0, r.exitCode(), "stdout:\n" + r.out() + "\nstderr:\n" + r.err() + "\n" + context);
        assertTrue(r.out().contains("free op/s") && r.out().lines().anyMatch(l -> l.startsWith("crash ")), r.out());
        assertTrue(r.out().contains(Runtime.getRuntime().availableProcessors() + " cores"), "the machine's cores: " + r.out());

        List<Path> dirs;
        try (Stream<Path> s = Files.list(out)) {
            dirs = s.filter(p -> p.getFileName().toString().startsWith("bench-faults-")).toList();
        }
        assertEquals(1, dirs.size(), dirs.toString());
        Path dir = dirs.get(0);
        JsonNode json = new ObjectMapper().readTree(dir.resolve(FaultReport.JSON_FILE).toFile());
        assertEquals(Runtime.getRuntime().availableProcessors(), json.get("cores").asInt());
        assertEquals(4, json.get("replicas").asInt());
        assertEquals(1, json.get("faultsTolerated").asInt());
        assertEquals(4000, json.get("faultFreeMillis").asLong());
        assertEquals(1000, json.get("warmupMillis").asLong());
        assertEquals(6000, json.get("faultyMillis").asLong());
        JsonNode scenarios = json.get("scenarios");
        assertEquals(1, scenarios.size());
        JsonNode c = scenarios.get(0);
        assertEquals("crash", c.get("scenario").asText());
        assertTrue(c.get("error").isNull(), c.toString());
        assertEquals(1, c.get("targets").size());
        String target = c.get("targets").get(0).asText();
        assertTrue(target.matches("replica-[1-4]"), target);

        long bucket = c.get("bucketMillis").asLong();
        long onset = c.get("onsetMillis").asLong();
        long from = c.get("faultyFromMillis").asLong();
        long end = c.get("faultyEndMillis").asLong();
        assertTrue(onset >= 4000, "the onset follows the fault-free window: " + c);
        assertEquals(onset, c.get("injectedMillis").asLong(), "a crash strikes when it is injected");
        // The onset in whole milliseconds, rounded down; the window's start, rounded up to a bucket.
        assertTrue(from >= onset && from - onset <= bucket && from % bucket == 0, c.toString());
        assertEquals(from + 6000, end);
        assertEquals(end / bucket, c.get("buckets").size(), "the timeline runs to the end of the faulty window");
        assertEquals(end / 1000, c.get("opsPerSecond").size());
        assertTrue(c.get("healedMillis").isNull());
        for (String field : List.of("faultFreeOps", "faultyOps", "fraction", "faultFreeP50Ms", "faultFreeP99Ms")) {
            assertTrue(c.get(field).isNumber(), field + ": " + c);
        }
        assertTrue(c.get("faultFreeOps").asDouble() > 0, "operations completed before the fault: " + c);
        assertEquals(c.get("faultyOps").asDouble() / c.get("faultFreeOps").asDouble(), c.get("fraction").asDouble(), 1e-9);
        assertEquals(!c.get("recoveryMillis").isNull(), c.get("recovered").asBoolean());

        for (String png : List.of(FaultCharts.ALL_FILE, FaultCharts.fileOf("crash"))) {
            Path file = dir.resolve(png);
            assertTrue(Files.size(file) > 0, png);
            BufferedImage image = ImageIO.read(file.toFile());
            assertNotNull(image, png);
            assertTrue(image.getWidth() > 0 && image.getHeight() > 0, png);
        }
        var chart = FaultCharts.chart(new ObjectMapper().treeToValue(c, ScenarioResult.class),
                new ObjectMapper().treeToValue(json, FaultReport.class));
        var marker = chart.getSeries("onset at " + FaultReport.seconds(onset));
        assertNotNull(marker, "the onset is marked");
        assertEquals(onset / 1000.0, marker.getXData()[0], 1e-9);
        assertTrue(Files.exists(dir.resolve(FaultReport.SUMMARY_FILE)));
        assertTrue(Files.isDirectory(dir.resolve(FaultBench.CLUSTERS).resolve("crash").resolve("logs")));
    }
}
