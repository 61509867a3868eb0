package io.psmr.bench.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import io.psmr.simulation.output.CsvWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The command in-process through picocli: usage errors exit 2 naming the flag; outputs have their documented shape. */
class SimulateCommandTest {

    /** What one in-process invocation printed and returned. */
    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        CliRun r = CliRun.of(Stream.concat(Stream.of("simulate"), Stream.of(args)).toArray(String[]::new));
        return new Run(r.exitCode(), r.out(), r.err());
    }

    static Stream<Arguments> badFlags() {
        return Stream.of(
                Arguments.of("--bitmap-bits", new String[] {"--bitmap-bits", "0"}),
                Arguments.of("--bitmap-bits", new String[] {"--bitmap-bits", "-5"}),
                Arguments.of("--batch", new String[] {"--batch", "10", "--keys", "5"}),
                Arguments.of("--batch", new String[] {"--batch", "0"}),
                Arguments.of("--graph-size", new String[] {"--graph-size", "-1"}),
                Arguments.of("--read-fraction", new String[] {"--read-fraction", "1.5"}),
                Arguments.of("--read-fraction", new String[] {"--read-fraction", "-0.1"}),
                Arguments.of("--target-rate", new String[] {"--target-rate", "2"}),
                Arguments.of("--target-rate", new String[] {"--target-rate", "0"}),
                Arguments.of("--iterations", new String[] {"--iterations", "abc"}),
                Arguments.of("--iterations", new String[] {"--iterations", "0"}),
                Arguments.of("--bitmap-bits", new String[] {"--bitmap-bits", "1e5x"}),
                Arguments.of("--keys", new String[] {"--keys", "0"}),
                Arguments.of("--zipf-theta", new String[] {"--distribution", "zipf", "--zipf-theta", "0"}),
                Arguments.of("--zipf-theta", new String[] {"--zipf-theta", "1.1"}),
                Arguments.of("--distribution", new String[] {"--distribution", "normal"}),
                Arguments.of("--format", new String[] {"--format", "xml"}),
                Arguments.of("--batch-size was renamed --batch", new String[] {"--batch-size", "100"}),
                Arguments.of("--bits was renamed --bitmap-bits", new String[] {"--bits", "1024"}),
                Arguments.of("--no-progress was renamed --quiet", new String[] {"--no-progress"}),
                Arguments.of("format 'table' was renamed text", new String[] {"--format", "table"}),
                Arguments.of("--partitions", new String[] {"--partitions", "-2"}),
                Arguments.of("--threads", new String[] {"--threads", "0"}),
                Arguments.of("--sweep", new String[] {"--sweep", "bits=10"}),
                Arguments.of("--sweep", new String[] {"--sweep", "width=1..2"}),
                Arguments.of("--sweep-points", new String[] {"--sweep", "bits=10..20", "--sweep-points", "0"}),
                Arguments.of("--table1", new String[] {"--table1", "--sweep", "bits=10..20"}),
                Arguments.of("--bitmap-bits", new String[] {"--table1", "--bitmap-bits", "100"}),
                Arguments.of("--batch", new String[] {"--batch", "1,2"}));
    }

    @Test
    void tooManyIterationsAreRefusedBeforeAnyWorkIsQueued() {
        Run r = run("-q", "--iterations", "20000000000");
        assertEquals(2, r.exit(), "exit code; stderr: " + r.err());
        assertTrue(r.err().contains("--iterations must be from 1 to 10000000000, got 20000000000"), r.err());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badFlags")
    void badFlagsExit2NamingTheFlag(String flag, String[] args) {
        String[] withQuiet = Stream.concat(Stream.of(args), Stream.of("-q", "-n", "10")).toArray(String[]::new);
        Run r = run(withQuiet);
        assertEquals(2, r.exit(), "exit code; stderr: " + r.err());
        assertTrue(r.err().contains(flag), "stderr should name " + flag + ": " + r.err());
        assertEquals("", r.out(), "nothing on stdout for a usage error");
    }

    @Test
    void sameSeedSameOutputWhateverTheThreads() {
        Run a = run("-q", "--table1", "-n", "3000", "--seed", "7", "--threads", "1", "--format", "csv");
        Run b = run("-q", "--table1", "-n", "3000", "--seed", "7", "--threads", "2", "--format", "csv");
        assertEquals(0, a.exit(), a.err());
        assertEquals(a.out(), b.out());
        Run c = run("-q", "--table1", "-n", "3000", "--seed", "8", "--format", "csv");
        assertTrue(!a.out().equals(c.out()), "another seed should give other figures");
    }

    @Test
    void csvHeadersStartWithTheIssuesColumns() {
        Run single = run("-q", "-n", "2000", "--format", "csv");
        assertEquals(0, single.exit(), single.err());
        assertTrue(single.out().startsWith(CsvWriter.BASE_HEADER + ",analytic_false_positive_pct"), single.out());
        assertEquals(2, single.out().lines().count());
        Run table1 = run("-q", "--table1", "-n", "2000", "--format", "csv");
        assertTrue(table1.out().startsWith(CsvWriter.BASE_HEADER + ",paper_pct,"), table1.out());
        assertEquals(13, table1.out().lines().count());
    }

    @Test
    void textTable1ShowsPaperSimulatedAnalyticAndDifference() {
        Run r = run("-q", "--table1", "-n", "2000");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("paper") && r.out().contains("simulated") && r.out().contains("analytic")
                && r.out().contains("sim-paper"), r.out());
        assertTrue(r.out().contains("93.52%"), "the paper's 1024000/7/200 cell: " + r.out());
    }

    @Test
    void jsonHasTheCells() throws Exception {
        Run r = run("-q", "-n", "2000", "--format", "json", "--read-fraction", "0.5", "--partitions", "8");
        assertEquals(0, r.exit(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals("single", json.get("kind").textValue(), r.out());
        JsonNode cells = json.get("cells");
        assertEquals(1, cells.size(), r.out());
        JsonNode cell = cells.get(0);
        assertEquals(8, cell.get("partitions").intValue(), r.out());
        assertEquals(0.5, cell.get("read_fraction").doubleValue(), r.out());
        for (String rate : new String[] {"simulated_pct", "rw_bitmap_pct", "partition_pct", "analytic_partition_pct"}) {
            assertTrue(cell.get(rate).isNumber() && cell.get(rate).doubleValue() >= 0 && cell.get(rate).doubleValue() <= 100,
                    rate + " in " + r.out());
        }
        assertTrue(r.out().contains("\"kind\": \"single\""), "one field per line as \"name\": value:\n" + r.out());
    }

    @Test
    void jsonOfTable1AndSizingCarriesThePaperAndTheSizing() throws Exception {
        Run table1 = run("-q", "--table1", "-n", "1000", "--format", "json");
        assertEquals(0, table1.exit(), table1.err());
        JsonNode t = new ObjectMapper().readTree(table1.out());
        assertEquals("table1", t.get("kind").textValue());
        assertEquals(12, t.get("cells").size(), table1.out());
        for (JsonNode cell : t.get("cells")) {
            assertEquals(cell.get("simulated_pct").doubleValue() - cell.get("paper_pct").doubleValue(),
                    cell.get("difference_pp").doubleValue(), 1e-5, cell.toString());
        }

        Run sizing = run("-q", "--target-rate", "0.05", "-b", "100", "-g", "5", "-n", "1000", "--format", "json");
        assertEquals(0, sizing.exit(), sizing.err());
        JsonNode z = new ObjectMapper().readTree(sizing.out()).get("sizing");
        assertEquals(5.0, z.get("target_pct").doubleValue(), sizing.out());
        assertTrue(z.get("bitmap_bits").intValue() > 0, sizing.out());
        assertTrue(z.get("analytic_pct").doubleValue() <= 5.0 && z.get("analytic_pct_one_bit_less").doubleValue() > 5.0, sizing.out());
    }

    @Test
    void outWritesCsvAndChart(@TempDir Path dir) throws Exception {
        Run r = run("-q", "--table1", "-n", "1000", "--out", dir.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(Files.readString(dir.resolve("table1.csv")).startsWith(CsvWriter.BASE_HEADER));
        assertPng(dir.resolve("table1.png"));
    }

    @Test
    void sweepWritesAChart(@TempDir Path dir) throws Exception {
        Run r = run("-q", "--sweep", "bits=102400..4096000", "--sweep-points", "4", "-b", "100,200", "-g", "1",
                "-n", "1000", "--out", dir.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(9, Files.readString(dir.resolve("sweep-bits.csv")).lines().count());
        assertPng(dir.resolve("sweep-bits.png"));
    }

    @Test
    void sizingReportsTheBitmapAndBothFigures() {
        Run r = run("-q", "--target-rate", "0.05", "-b", "100", "-g", "5", "-n", "2000");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("m = ") && r.out().contains("analytic rate at m:")
                && r.out().contains("simulated rate at m:"), r.out());
    }

    @Test
    void granularityComparisonShowsEveryMode() {
        Run r = run("-q", "-n", "2000", "--read-fraction", "0.5", "--partitions", "1000", "--distribution", "zipf");
        assertEquals(0, r.exit(), r.err());
        for (String row : new String[] {"exact keys", "bitmap, ", "partitions, key mod 1000", "r/w exact keys",
            "r/w bitmaps"}) {
            assertTrue(r.out().contains(row), row + " missing: " + r.out());
        }
    }

    private static void assertPng(Path png) throws Exception {
        byte[] b = Files.readAllBytes(png);
        assertTrue(b.length > 1000 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G', "not a PNG: " + png);
    }
}
