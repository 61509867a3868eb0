package io.psmr.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.psmr.bench.demo.DemoReport;

class PsmrMainTest {


    private static void assertUsageError(CliRun r, String expectedMessage, String expectedUsage) {
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), "exit code; stderr was:\n" + r.err());
        assertTrue(r.err().contains(expectedMessage), "stderr should contain '" + expectedMessage + "':\n" + r.err());
        assertTrue(r.err().contains(expectedUsage), "stderr should contain the usage '" + expectedUsage + "':\n" + r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    @Test
    void unknownSubcommandIsAUsageError() {
        assertUsageError(CliRun.of("nosuch"), "Unmatched argument at index 0: 'nosuch'", "Usage: psmr ");
        // --help must not turn a command that does not exist into a success.
        assertUsageError(CliRun.of("pbft", "--help"), "Unmatched argument at index 0: 'pbft'", "Usage: psmr ");
    }

    @Test
    void missingSubcommandIsAUsageError() {
        assertUsageError(CliRun.of(), "Missing required subcommand", "Usage: psmr ");
    }

    @Test
    void unknownFlagIsAUsageError() {
        assertUsageError(CliRun.of("--bogus"), "Unknown option: '--bogus'", "Usage: psmr ");
        assertUsageError(CliRun.of("demo", "--bogus"), "Unknown option: '--bogus'", "Usage: psmr demo ");
    }

    @Test
    void badFlagValuesAreUsageErrors() {
        assertUsageError(CliRun.of("demo", "--commands", "-5"), "--commands must be from 1 to 10000000, got -5", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--commands", "many"), "Invalid value for option '--commands'", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--commands", "0"), "--commands must be from 1", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--rounds", "0"), "--rounds must be from 1 to 100", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--seed", "-1"), "--seed must be at least 0", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--conflict", "101"), "--conflict must be a percentage", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--format", "xml"), "Invalid value for option '--format'", "Usage: psmr demo ");
    }

    @Test
    void helpListsOnlyTheSubcommandsThatExist() {
        CliRun r = CliRun.of("--help");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().startsWith("Usage: psmr "), r.out());
        Set<String> built = Set.of("demo", "simulate", "bench", "load", "cluster", "node", "chaos");
        for (String command : built) {
            assertTrue(r.out().contains("  " + command + " "), "--help lacks '" + command + "':\n" + r.out());
        }
        for (String planned : List.of("pbft", "replica")) {
            assertTrue(!r.out().contains("\n  " + planned + " "), "--help lists '" + planned + "':\n" + r.out());
        }
        assertEquals(built, PsmrMain.commandLine().getSubcommands().keySet());
    }

    @Test
    void versionNamesPsmr() {
        CliRun r = CliRun.of("--version");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().startsWith("psmr "), r.out());
    }

    @Test
    void demoCsvPrintsTheHeaderAndOneRowPerConfiguration() {
        CliRun r = CliRun.of("demo", "--format", "csv", "--commands", "2000", "--cbase-commands", "200", "--rounds", "1",
                "--work", "10", "--seed", "7");
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(DemoReport.CSV_HEADER, lines.get(0));
        assertEquals("mode,graph,batch,workers,throughput_cps", lines.get(0));

        Set<String> configs = new HashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(5, f.length, "row: " + line);
            assertTrue(Long.parseLong(f[4]) > 0, "throughput must be positive: " + line);
            configs.add(String.join(",", Arrays.copyOf(f, 4)));
        }
        assertEquals(lines.size() - 1, configs.size(), "no configuration twice:\n" + r.out());
        assertEquals(Set.of(
                "sequential,none,200,1",
                "cbase,monitor,1,1", "cbase,monitor,1,2",
                "keys_hashed,indexed,200,1", "keys_hashed,indexed,200,2",
                "bitmap,monitor,200,1", "bitmap,monitor,200,2",
                "bitmap,indexed,200,1", "bitmap,indexed,200,2",
                "rw_bitmap,indexed,200,1", "rw_bitmap,indexed,200,2"), configs);
    }

    @Test
    void demoTableWithAHotKeyRuns() {
        CliRun r = CliRun.of("demo", "--commands", "1000", "--cbase-commands", "100", "--rounds", "2", "--work", "0",
                "--conflict", "50");
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("vs sequential"), r.out());
        assertTrue(r.out().contains("rw_bitmap"), r.out());
        assertTrue(r.out().contains("50% to one hot key"), r.out());
    }
}
