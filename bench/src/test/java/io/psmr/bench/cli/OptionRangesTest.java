package io.psmr.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code --workers}, {@code --batch} and {@code --pillars} take one range in every command that has them, say it
 * alike in every help text, and refuse a value outside it with one message. Nothing runs: every case is a usage error.
 */
class OptionRangesTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "cluster start --dir DIR --workers 1025                  | --workers must be from 1 to 1024, got 1025",
        "cluster start --dir DIR --workers 0                     | --workers must be from 1 to 1024, got 0",
        "cluster init --dir DIR --hosts 127.0.0.2 --workers 1025 | --workers must be from 1 to 1024, got 1025",
        "load --workers 1025                                     | --workers must be from 1 to 1024, got 1025",
        "bench --workers 1,1025                                  | --workers must be from 1 to 1024, got 1025",
        "bench e2e --workers 1025                                | --workers must be from 1 to 1024, got 1025",
        "ycsb --workload a --embedded --workers 1025             | --workers must be from 1 to 1024, got 1025",
        "load --batch 4096                                       | --batch must be from 1 to 4095, got 4096",
        "bench --batch 200,4096                                  | --batch must be from 1 to 4095, got 4096",
        "bench e2e --batch 4096                                  | --batch must be from 1 to 4095, got 4096",
        "ycsb --workload a --embedded --batch 4096               | --batch must be from 1 to 4095, got 4096",
        "ycsb --workload a --embedded --batch 0                  | --batch must be from 1 to 4095, got 0",
        "cluster start --dir DIR --ordering pbft --pillars 65    | --pillars must be from 1 to 64, got 65",
        "load --ordering pbft --pillars 65                       | --pillars must be from 1 to 64, got 65",
        "bench e2e --ordering pbft --pillars 2,65                | --pillars must be from 1 to 64, got 65",
    })
    void oneRangeAndOneMessagePerFlag(String args, String message) {
        List<String> argv = new ArrayList<>();
        for (String a : args.trim().split("\\s+")) {
            argv.add(a.equals("DIR") ? dir.toString() : a);
        }
        String path = "psmr " + String.join(" ", argv.stream().takeWhile(a -> !a.startsWith("-")).toList());
        CliRun r = CliRun.of(argv.toArray(String[]::new));
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), r.err());
        assertTrue(r.err().startsWith(path + ": " + message.trim() + "\n"), "expected '" + path + ": " + message.trim()
                + "' first on stderr:\n" + r.err());
        assertTrue(r.err().contains("Usage: " + path + " "), r.err());
        assertEquals("", r.out());
    }

    @Test
    void everyHelpStatesTheSameRange() {
        for (String command : List.of("cluster start", "load", "bench", "bench e2e", "ycsb")) {
            List<String> argv = new ArrayList<>(List.of(command.split(" ")));
            argv.add("--help");
            String help = CliRun.of(argv.toArray(String[]::new)).out().replaceAll("\\s+", " ");
            assertTrue(help.contains(OptionRanges.WORKERS), command + " --help lacks '" + OptionRanges.WORKERS + "':\n" + help);
            if (!command.equals("cluster start")) {
                assertTrue(help.contains(OptionRanges.BATCH), command + " --help lacks '" + OptionRanges.BATCH + "':\n" + help);
            }
            if (List.of("cluster start", "load", "bench e2e").contains(command)) {
                assertTrue(help.contains(OptionRanges.PILLARS), command + " --help lacks '" + OptionRanges.PILLARS + "':\n" + help);
            }
        }
    }

    @Test
    void theBoundsThemselvesAreAccepted() {
        CommandLine cl = PsmrMain.commandLine();
        assertEquals(1, OptionRanges.workers(cl, 1));
        assertEquals(1024, OptionRanges.workers(cl, 1024));
        assertEquals(4095, OptionRanges.batch(cl, 4095));
        assertEquals(64, OptionRanges.pillars(cl, 64));
        assertThrows(CommandLine.ParameterException.class, () -> OptionRanges.pillars(cl, 0));
    }
}
