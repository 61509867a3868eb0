package io.psmr.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cli.PsmrMain;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code psmr bench faults}: usage errors with their exact messages, the help, and the fault list. Starts no cluster. */
class FaultsCommandTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--replicas 5              | psmr bench faults: --replicas must be 3f+1 with f >= 1 (4, 7, 10, 13 or 16), got 5",
        "--replicas 1              | psmr bench faults: --replicas must be 3f+1 with f >= 1 (4, 7, 10, 13 or 16), got 1",
        "--replicas 19             | psmr bench faults: --replicas must be 3f+1 with f >= 1 (4, 7, 10, 13 or 16), got 19",
        "--pillars 0               | psmr bench faults: --pillars must be from 1 to 64, got 0",
        "--clients 0               | psmr bench faults: --clients must be from 1 to 10000, got 0",
        "--fault-free 1s           | psmr bench faults: --fault-free must be from 2s to 10m in steps of 100ms, got 1s",
        "--faulty 2050ms           | psmr bench faults: --faulty must be from 2s to 10m in steps of 100ms, got 2050ms",
        "--faulty 11m              | psmr bench faults: --faulty must be from 2s to 10m in steps of 100ms, got 11m",
        "--faults crash,crash      | psmr bench faults: --faults lists crash twice",
        "--leader-selection all,all | psmr bench faults: --leader-selection lists a selection twice",
        "--leader-selection some   | psmr bench faults: Invalid value for option '--leader-selection' (LIST): --leader-selection must be blacklist or all, got 'some'",
        "--warmup 39500ms          | psmr bench faults: --warmup must be from 0s to --fault-free (40s) minus 1s in steps of 100ms, got 39500ms",
        "--fault-free 2s --warmup 1050ms | psmr bench faults: --warmup must be from 0s to --fault-free (2s) minus 1s in steps of 100ms, got 1050ms",
        "--leader-rotation spin    | psmr bench faults: Invalid value for option '--leader-rotation': --leader-rotation must be rotating or fixed, got 'spin'",
        "--format csv              | psmr bench faults: --format must be text or json for psmr bench faults, got 'csv'",
        "--bogus                   | psmr bench faults: Unknown option: '--bogus'",
    })
    void badFlagsExitWithUsageErrorNamingTheFlag(String args, String message) {
        CliRun r = run(args);
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), "exit code; stderr:\n" + r.err());
        assertEquals(message.trim(), r.err().lines().findFirst().orElse(""), r.err());
        assertTrue(r.err().contains("Usage: psmr bench faults"), "the usage follows:\n" + r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    @Test
    void anUnknownFaultIsRefusedListingTheValidOnes() {
        CliRun r = run("--faults crash,slow");
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), r.err());
        assertEquals("psmr bench faults: --faults: unknown fault 'slow'; the faults are crash, pause, " + ByzantineMode.names(),
                r.err().lines().findFirst().orElse(""));
    }

    @Test
    void theFaultsAreCrashPauseAndEveryByzantineMode() {
        List<FaultScenario> all = FaultScenario.all();
        assertEquals(2 + ByzantineMode.values().length, all.size());
        assertEquals(List.of(FaultScenario.CRASH, FaultScenario.PAUSE), all.subList(0, 2));
        for (ByzantineMode m : ByzantineMode.values()) {
            assertTrue(all.contains(FaultScenario.byzantine(m)), m.cliName());
            assertEquals(FaultScenario.byzantine(m), FaultScenario.fromName(m.cliName()));
        }
        CliRun help = CliRun.of("bench", "faults", "--help");
        assertEquals(0, help.exitCode(), help.err());
        for (FaultScenario s : all) {
            assertTrue(help.out().contains(s.name()), "help names " + s.name() + ":\n" + help.out());
        }
    }

    @Test
    void theTargetsAreFReplicasChosenByTheSeed() {
        FaultSettings four = settings(4, 42);
        FaultSettings seven = settings(7, 42);
        assertEquals(1, four.targets().size());
        assertEquals(2, seven.targets().size());
        assertEquals(four.targets(), settings(4, 42).targets(), "deterministic");
        assertTrue(seven.targets().stream().allMatch(t -> t.matches("replica-[1-7]")), seven.targets().toString());
        assertEquals(2, seven.targets().stream().distinct().count());
    }

    private static FaultSettings settings(int replicas, long seed) {
        return new FaultSettings(replicas, 2, io.psmr.ordering.pbft.LeaderRotation.ROTATING, java.util.List.of(io.psmr.ordering.pbft.LeaderSelection.BLACKLIST), 16,
                java.time.Duration.ofSeconds(10), java.time.Duration.ofSeconds(2), java.time.Duration.ofSeconds(20), FaultScenario.all(), seed,
                java.nio.file.Path.of("results"), 2);
    }

    private static CliRun run(String args) {
        return CliRun.of(Stream.concat(Stream.of("bench", "faults"), Stream.of(args.trim().split("\\s+")))
                .toArray(String[]::new));
    }
}
