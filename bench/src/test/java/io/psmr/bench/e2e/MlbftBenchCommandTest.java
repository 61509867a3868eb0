package io.psmr.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cli.PsmrMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code psmr bench mlbft} and {@code psmr bench e2e --ordering mlbft}: usage errors, and tiny runs whose rows say what
 * ran; every MLBFT run inside checks that its replicas' digests and deadlock resolutions agree. Never speed.
 */
class MlbftBenchCommandTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--figures 4.12          | --figures takes 4.10, 4.11 and 4.16 (4.13 comes with 4.10), got '4.12'",
        "--partitions 1          | --partitions must be from 2 to 64, got 1",
        "--cross-border 101      | --cross-border must be percentages from 0 to 100, got 101",
        "--cross-border 1,1      | --cross-border lists a value twice: [1, 1]",
        "--client-counts 0       | --client-counts must each be from 1 to 10000, got 0",
        "--read-shares -1        | --read-shares must be percentages from 0 to 100, got -1",
        "--keys 8                | --keys must be from 4 x --partitions (16: four MULTI_PUT keys in each partition) to 100000000, got 8",
        "--window 0              | --window must be from 1 to 256, got 0",
        "--runs 0                | --runs must be from 1 to 100, got 0",
        "--duration 10ms         | --duration must be from 100ms to 10m, got 10ms",
        "--jvm-warmup 10ms       | --jvm-warmup must be 0s or from 100ms to 10m, got 10ms",
    })
    void badFlagsExitWithUsageErrorNamingTheFlag(String args, String message) {
        String[] argv = Stream.concat(Stream.of("bench", "mlbft"), Stream.of(args.trim().split("\\s+"))).toArray(String[]::new);
        CliRun r = CliRun.of(argv);
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), "exit code; stderr:\n" + r.err());
        assertTrue(r.err().contains(message.trim()), "stderr should contain '" + message.trim() + "':\n" + r.err());
        assertTrue(r.err().contains("Usage: psmr bench mlbft"), r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    @Test
    void e2eRefusesTooManyPartitionsForMlbft() {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "mlbft", "--partitions", "65");
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), r.err());
        assertTrue(r.err().contains("--partitions must be at most 64 with mlbft, got 65"), r.err());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aTinyRunWritesOneRowPerConfigurationAndPointWithMlbftsDeadlocks(@TempDir Path dir) throws IOException {
        CliRun r = CliRun.of("bench", "mlbft", "--figures", "4.10", "--cross-border", "0,100", "--clients", "8",
                "--keys", "64", "--runs", "1", "--duration", "300ms", "--warmup", "100ms", "--jvm-warmup", "0s", "--quiet",
                "--out", dir.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        Path run;
        try (Stream<Path> s = Files.list(dir)) {
            run = s.filter(p -> p.getFileName().toString().startsWith("bench-mlbft-")).findFirst().orElseThrow();
        }
        List<String> csv = Files.readAllLines(run.resolve("results.csv"));
        assertEquals(MlbftFigures.CSV_HEADER, csv.get(0));
        assertEquals(1 + 2 * 3, csv.size(), String.join("\n", csv)); // 2 points x 3 configurations
        for (String line : csv.subList(1, csv.size())) {
            String[] f = line.split(",", -1);
            assertEquals("4.10", f[0], line);
            assertTrue(Long.parseLong(f[7]) > 0, "throughput: " + line);
            boolean mlbft = f[2].equals("mlbft");
            assertEquals(mlbft, !f[12].isEmpty(), "deadlocks only for mlbft: " + line);
            if (mlbft) {
                assertEquals("mlbft", f[3], line);
                assertTrue(Long.parseLong(f[12]) >= 0, line);
            }
        }
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("4.10,SL (COP-PBFT sequential),pbft,sequential,8,50,100,")),
                String.join("\n", csv));
        for (String png : List.of("fig-4.10-cross-border.png", "fig-4.13-deadlocks.png")) {
            assertTrue(Files.size(run.resolve(png)) > 0, png);
        }
        assertTrue(Files.readString(run.resolve("summary.md")).contains("cores"), "summary names the cores");
    }
}
