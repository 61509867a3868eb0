package io.psmr.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cli.PsmrMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code psmr bench e2e}'s sweeps ({@code --pillars}, {@code --leader-rotation}, {@code --batch} lists,
 * {@code --cross-partition} with {@code --partitions}): usage errors, and tiny runs' rows and columns. Asserts
 * behaviour, never speed.
 */
class E2eSweepCommandTest {

    private static final String HEADER = E2eReport.CSV_HEADER + "," + E2eReport.SWEEP_COLUMNS;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--ordering pbft --pillars 0                       | --pillars must be from 1 to 64, got 0",
        "--ordering pbft --pillars 65                      | --pillars must be from 1 to 64, got 65",
        "--ordering pbft --pillars 1,2,1                   | --pillars lists 1 twice",
        "--ordering pbft --pillars two                     | Invalid value for option '--pillars'",
        "--pillars 2                                       | --pillars applies to pbft only; use --ordering pbft or all",
        "--ordering both --leader-rotation fixed           | --leader-rotation applies to pbft only; use --ordering pbft or all",
        "--ordering pbft --leader-rotation sideways        | --leader-rotation must be rotating or fixed, got 'sideways'",
        "--ordering pbft --leader-rotation fixed,fixed     | --leader-rotation lists fixed twice",
        "--batch 1,0                                       | --batch must be from 1 to 4095, got 0",
        "--batch 200,200                                   | --batch lists 200 twice",
        "--partitions 4 --cross-partition 0,101            | --cross-partition must be a percentage from 0 to 100, got 101",
        "--cross-partition 10                              | --cross-partition above 0 needs --partitions of at least 2",
        "--partitions 1                                    | --partitions must be from 2 to 1024, got 1",
        "--partitions 4 --cross-partition 10 --multi-put-keys 1 | --cross-partition above 0 needs --multi-put-keys of at least 2, got 1",
        "--partitions 300 --keys 1000                      | --partitions (300) times --multi-put-keys (4) must be at most --keys (1000)",
    })
    void badSweepValuesExitWithUsageErrorNamingTheFlag(String args, String message) {
        String[] argv = Stream.concat(Stream.of("bench", "e2e"), Stream.of(args.trim().split("\\s+"))).toArray(String[]::new);
        CliRun r = CliRun.of(argv);
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), "exit code; stderr:\n" + r.err());
        assertTrue(r.err().contains(message.trim()), "stderr should contain '" + message.trim() + "':\n" + r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    private static Path onlyDir(Path tmp) throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            List<Path> dirs = s.toList();
            assertEquals(1, dirs.size(), dirs.toString());
            return dirs.get(0);
        }
    }

    @Test
    void aPillarSweepRunsEveryPointWithTheLeadersBytesPerOperation(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "pbft", "--modes", "bitmap-indexed", "--pillars", "1,2",
                "--leader-rotation", "rotating,fixed", "--batch", "1,20", "--clients", "2", "--duration", "200ms", "--warmup",
                "20ms", "--runs", "1", "--keys", "100", "--bitmap-bits", "1024", "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("leader B/op"), r.out());
        Path dir = onlyDir(tmp);
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(HEADER, lines.get(0));
        assertEquals(9, lines.size(), "2 batches x 2 rotations x 2 pillar counts, bitmap-indexed only: " + lines);
        List<String> points = new ArrayList<>();
        int base = E2eReport.CSV_HEADER.split(",").length;
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals("pbft", f[15], line);
            assertEquals("bitmap-indexed", f[0], line);
            assertEquals("", f[8], "no CBASE reference under a sweep: " + line);
            points.add(f[2] + "/" + f[base + 1] + "/" + f[base]);
            assertEquals("0", f[base + 2], "no cross-partition share: " + line);
            double leader = Double.parseDouble(f[base + 7]);
            double mean = Double.parseDouble(f[base + 10]);
            assertTrue(leader > 0 && mean > 0 && leader >= mean, "the leader sends at least the mean: " + line);
            assertTrue(Double.parseDouble(f[base + 8]) <= leader && leader <= Double.parseDouble(f[base + 9]), line);
        }
        assertEquals(List.of("1/rotating/1", "1/rotating/2", "1/fixed/1", "1/fixed/2",
                "20/rotating/1", "20/rotating/2", "20/fixed/1", "20/fixed/2"), points, "batch, then rotation, then pillars");
        assertTrue(Files.size(dir.resolve("e2e-pillars.png")) > 0);
        assertTrue(Files.size(dir.resolve("e2e-leader-bytes.png")) > 0);
        assertTrue(Files.size(dir.resolve("e2e-throughput.png")) > 0);
        assertFalse(Files.exists(dir.resolve("e2e-cross-partition.png")), "no partitions, no cross-partition chart");
        assertFalse(Files.exists(dir.resolve("e2e-cross-partition-relative.png")), "no partitions, no cross-partition chart");
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("| Np | leaders | cross % |"));
    }

    @Test
    void aCrossPartitionSweepRunsEveryShare(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "local", "--modes", "bitmap-indexed,sequential", "--partitions", "4",
                "--cross-partition", "0,50,100", "--clients", "2", "--duration", "200ms", "--warmup", "20ms", "--runs", "1",
                "--keys", "100", "--bitmap-bits", "1024", "--quiet", "--format", "csv", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        Path dir = onlyDir(tmp);
        assertEquals(Files.readString(dir.resolve("results.csv")), r.out());
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(HEADER, lines.get(0));
        int base = E2eReport.CSV_HEADER.split(",").length;
        List<String> points = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            points.add(f[base + 2] + "/" + f[0]);
            assertEquals("", f[base], "no pillars outside pbft: " + line);
            assertEquals("", f[base + 1], "no rotation outside pbft: " + line);
            assertEquals("4", f[base + 3], line);
            assertEquals("", f[base + 7], "no PBFT traffic: " + line);
        }
        assertEquals(List.of("0/bitmap-indexed", "0/sequential", "50/bitmap-indexed", "50/sequential", "100/bitmap-indexed",
                "100/sequential"), points);
        assertTrue(Files.size(dir.resolve("e2e-cross-partition.png")) > 0);
        assertTrue(Files.size(dir.resolve("e2e-cross-partition-relative.png")) > 0);
        assertFalse(Files.exists(dir.resolve("e2e-pillars.png")), "no pbft, no pillar chart");
    }
}
