package io.psmr.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
        assertUsageError(CliRun.of("demo", "--runs", "0"), "--runs must be from 1 to 100", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--rounds", "3"), "--rounds was renamed --runs", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--format", "table"), "format 'table' was renamed text", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--format", "json"), "--format must be text or csv for psmr demo, got 'json'", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--seed", "-1"), "--seed must be at least 0", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--conflict", "101"), "--conflict must be a percentage", "Usage: psmr demo ");
        assertUsageError(CliRun.of("demo", "--format", "xml"), "Invalid value for option '--format'", "Usage: psmr demo ");
    }

    @Test
    void helpListsOnlyTheSubcommandsThatExist() {
        CliRun r = CliRun.of("--help");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().startsWith("Usage: psmr "), r.out());
        Set<String> built = Set.of("demo", "simulate", "bench", "load", "cluster", "node", "chaos", "ycsb");
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

    /** Every command and subcommand answers --version with psmr's version, as the top command does. */
    @Test
    void everyCommandAnswersVersion() {
        String version = CliRun.of("--version").out();
        List<String> paths = new java.util.ArrayList<>();
        collectPaths(PsmrMain.commandLine(), paths);
        assertTrue(paths.size() > 15, paths.toString());
        for (String path : paths) {
            List<String> argv = new java.util.ArrayList<>(List.of(path.split(" ")).subList(1, path.split(" ").length));
            argv.add("--version");
            CliRun r = CliRun.of(argv.toArray(String[]::new));
            assertEquals(0, r.exitCode(), path + " --version: " + r.err());
            assertEquals(version, r.out(), path + " --version");
        }
    }

    /** {@code s} with every run of whitespace (line wraps included) as one space. */
    private static String flat(String s) {
        return s.replaceAll("\\s+", " ");
    }

    private static void collectPaths(picocli.CommandLine cl, List<String> paths) {
        paths.add(cl.getCommandSpec().qualifiedName());
        cl.getSubcommands().values().forEach(sub -> collectPaths(sub, paths));
    }

    /** Usage errors and failures alike start with the full command path, never with a part of it. */
    @Test
    void messagesNameTheFullCommandPath(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        CliRun usage = CliRun.of("cluster", "start", "--dir", dir.toString(), "--acceptors", "0");
        assertUsageError(usage, "psmr cluster start: --acceptors must be from 1 to 15, got 0", "Usage: psmr cluster start ");
        assertTrue(usage.err().startsWith("psmr cluster start: "), usage.err());

        CliRun failed = CliRun.of("cluster", "start", "--dir", dir.toString(), "--resume");
        assertEquals(PsmrMain.EXIT_FAILURE, failed.exitCode(), failed.err());
        assertEquals("psmr cluster start: --resume: no cluster in " + dir.toAbsolutePath().normalize() + " (no cluster.json); "
                + "start one without --resume", failed.err().strip());

        assertUsageError(CliRun.of("bench", "e2e", "--workers", "0"), "psmr bench e2e: --workers must be from 1 to 1024, got 0",
                "Usage: psmr bench e2e ");
    }

    /** The exit codes are listed in the help of psmr, load and chaos. */
    @Test
    void helpListsTheExitCodes() {
        String top = flat(CliRun.of("--help").out());
        assertTrue(top.contains("Exit codes:") && top.contains("3 load, chaos, ycsb: the replicas diverged or the history is not "
                + "linearizable (safety)") && top.contains("4 load, chaos: stalled, no operation completed within the stall "
                + "timeout (liveness)"), top);
        String load = flat(CliRun.of("load", "--help").out());
        assertTrue(load.contains("3 the replicas' digests differ (safety)")
                && load.contains("4 stalled: no operation completed for --stall-timeout (liveness)"), load);
        String chaos = flat(CliRun.of("chaos", "--help").out());
        assertTrue(chaos.contains("3 the replicas diverged, the history is not linearizable, an acknowledged write was lost, or a"
                + " client was acknowledged on a partition's minority side (safety)")
                && chaos.contains("4 stalled: no operation completed, the load stalled, or the replicas did not converge after the heal"
                + " (liveness; not with --beyond-f)"), chaos);
    }

    @Test
    void demoCsvPrintsTheHeaderAndOneRowPerConfiguration() {
        CliRun r = CliRun.of("demo", "--format", "csv", "--commands", "2000", "--cbase-commands", "200", "--runs", "1",
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
                "keys_hashed,split-indexed,200,1", "keys_hashed,split-indexed,200,2",
                "bitmap,monitor,200,1", "bitmap,monitor,200,2",
                "bitmap,split-indexed,200,1", "bitmap,split-indexed,200,2",
                "rw_bitmap,split-indexed,200,1", "rw_bitmap,split-indexed,200,2"), configs);
    }

    @Test
    void demoTableWithAHotKeyRuns() {
        CliRun r = CliRun.of("demo", "--commands", "1000", "--cbase-commands", "100", "--runs", "2", "--work", "0",
                "--conflict", "50");
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("vs sequential"), r.out());
        assertTrue(r.out().contains("rw_bitmap"), r.out());
        assertTrue(r.out().contains("50% of batches also write one hot key"), r.out());
    }

    /** Every old spelling, in every command that has its new name, is refused naming the new one. */
    /**
     * The hidden old spellings must cost nothing when they are not used: picocli sets every option's
     * initial value on each parse, and a refusal wired there printed "[picocli WARN]" on stderr.
     */
    @Test
    void parsingPrintsNoPicocliWarnings() throws Exception {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CliRun r = CliRun.of("load", "--mode", "keys");
            assertEquals(2, r.exitCode(), r.err());
            CliRun.of("cluster", "start", "--help");
            CliRun.of("bench", "--help");
        } finally {
            System.setErr(saved);
        }
        String stderr = captured.toString(StandardCharsets.UTF_8);
        assertFalse(stderr.contains("picocli WARN"), stderr);
    }

    @Test
    void renamedOptionsAreRefusedNamingTheNewName() {
        String[][] cases = {
            {"bench", "--bits", "1024", "--bits was renamed --bitmap-bits"},
            {"bench", "--no-progress", "--no-progress was renamed --quiet"},
            {"bench e2e", "--bits", "1024", "--bits was renamed --bitmap-bits"},
            {"bench e2e", "--batch-size", "10", "--batch-size was renamed --batch"},
            {"bench e2e", "--no-progress", "--no-progress was renamed --quiet"},
            {"load", "--batch-size", "10", "--batch-size was renamed --batch"},
            {"simulate", "--batch-size", "10", "--batch-size was renamed --batch"},
            {"simulate", "--bits", "10", "--bits was renamed --bitmap-bits"},
            {"cluster start", "--tick-ms", "10", "--tick-ms was renamed --tick"},
            {"demo", "--rounds", "3", "--rounds was renamed --runs"},
            {"cluster stop", "--dir", "x", "--force", "--force was renamed --discard-uncheckpointed (cluster start --force deletes a "
                + "cluster; cluster stop deletes nothing, and this flag only lets it lose what PBFT replicas executed after their "
                + "last checkpoint)"},
        };
        for (String[] c : cases) {
            List<String> argv = new java.util.ArrayList<>(List.of(c[0].split(" ")));
            argv.addAll(List.of(c).subList(1, c.length - 1));
            CliRun r = CliRun.of(argv.toArray(String[]::new));
            assertUsageError(r, c[c.length - 1], "Usage: psmr " + c[0] + " ");
        }
    }

    /** The renamed spellings stay out of every help text; the new ones are there. */
    @Test
    void everyHelpUsesTheOneVocabulary() {
        List<String> commands = List.of("", "demo", "simulate", "bench", "bench e2e", "bench micro", "load", "cluster",
                "cluster start", "cluster status", "cluster kill", "cluster restart", "cluster stop", "node", "chaos");
        for (String command : commands) {
            List<String> argv = new java.util.ArrayList<>(command.isEmpty() ? List.of() : List.of(command.split(" ")));
            argv.add("--help");
            CliRun r = CliRun.of(argv.toArray(String[]::new));
            assertEquals(0, r.exitCode(), command + ": " + r.err());
            for (String old : List.of("--bits ", "--batch-size", "--no-progress", "--tick-ms", "--rounds", "SECONDS", " MS ",
                    "table,", "table or csv", "keys (exact", "--mode keys ")) {
                assertTrue(!r.out().contains(old), "psmr " + command + " --help mentions '" + old + "':\n" + r.out());
            }
        }
        assertTrue(CliRun.of("bench", "--help").out().contains("--bitmap-bits"));
        assertTrue(CliRun.of("bench", "e2e", "--help").out().contains("--quiet"));
        assertTrue(CliRun.of("cluster", "start", "--help").out().contains("--tick=TIME"));
        assertTrue(CliRun.of("simulate", "--help").out().contains("--batch=B"));
    }
}
