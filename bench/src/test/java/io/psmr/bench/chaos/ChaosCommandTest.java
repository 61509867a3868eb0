package io.psmr.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code psmr chaos} usage errors exit 2, name the flag and print the usage; no cluster is started. */
class ChaosCommandTest {

    @TempDir
    Path dir;

    @Test
    void usageErrorsExit2AndNameTheFlag() {
        String d = dir.toString();
        assertUsage(CliRun.of("chaos"), "Missing required option: '--cluster=DIR'");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--faults", "kill,explode"),
                "--faults entries must be kill, pause or restart, got 'explode'");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--faults", "kill,,pause"), "--faults entries must be kill, pause or restart, got ''");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--faults", "restart"), "--faults: restart needs kill");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--duration", "soon"),
                "Invalid value for option '--duration': 'soon' is not a duration: write a whole number with a unit ms, s, m or h");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--duration", "30"), "Invalid value for option '--duration': '30' has no unit");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--duration", "2s"), "--duration must be from 5s to 1h, got 2s");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--max-down", "0"), "--max-down must be at least 1, got 0");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--clients", "0"), "--clients must be from 1 to 1000, got 0");
        assertUsage(CliRun.of("chaos", "--cluster", d, "--seed", "x"), "--seed");
        assertUsage(CliRun.of("chaos", "--cluster", d), "--cluster: ");
    }

    @Test
    void theCommandIsListed() {
        CliRun help = CliRun.of("--help");
        assertEquals(0, help.exitCode());
        assertTrue(help.out().contains("chaos"), help.out());
        for (String flag : List.of("--cluster", "--duration", "--faults", "--seed", "--max-down", "--clients", "--report")) {
            assertTrue(CliRun.of("chaos", "--help").out().contains(flag), flag);
        }
    }

    private static void assertUsage(CliRun run, String message) {
        assertEquals(2, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains(message), "expected '" + message + "' in:\n" + run.err());
        assertTrue(run.err().contains("Usage:"), run.err());
    }
}
