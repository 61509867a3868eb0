package io.psmr.bench.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import io.psmr.bench.demo.Demo;
import io.psmr.bench.demo.DemoOptions;
import io.psmr.bench.demo.DemoReport;
import io.psmr.bench.demo.DemoResult;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code psmr demo}: see {@link Demo}. */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        versionProvider = PsmrVersion.class,
        description = {
            "Runs a synthetic workload through the scheduler, in process, and compares throughputs.",
            "",
            "Single-key commands (half reads, half writes, keys uniform over 1,000,000 keys) run under: "
                + "the sequential scheduler; CBASE-style scheduling (batches of 1, keys compared pairwise, "
                + "monitor graph); and batches of 200 with exact hashed keys, bitmaps (monitor and indexed "
                + "graphs) and read/write bitmaps, each with 1 and 2 workers. Prints median throughput and "
                + "its ratio to sequential execution, and checks every run's final state against sequential "
                + "execution. Takes under a minute with the defaults on two cores.",
            ""})
final class DemoCommand implements Callable<Integer> {

    /** Most commands per run: the whole workload is built in memory before timing (about 100 bytes a command). */
    static final int MAX_COMMANDS = 10_000_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--commands", paramLabel = "N", defaultValue = "200000",
            description = "Commands per timed run of each batched configuration, at most 10,000,000 "
                    + "(default: ${DEFAULT-VALUE}).")
    int commands;

    @Option(names = "--cbase-commands", paramLabel = "N",
            description = "Commands per timed run of CBASE, whose batches of 1 are slow to schedule "
                    + "(default: a tenth of --commands, at least 1).")
    Integer cbaseCommands;

    /** --format text or csv (the header '{@value DemoReport#CSV_HEADER}' and one row per configuration); --quiet. */
    @Mixin
    OutputOptions output;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42",
            description = "Seed of the workload, at least 0 (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--conflict", paramLabel = "PCT", defaultValue = "0",
            description = "Percentage of batches, 0 to 100, that also write one shared hot key, as in bench and load: "
                    + "their first command becomes a write of it, so CBASE's batches of one are then single writes of it "
                    + "(default: ${DEFAULT-VALUE}).")
    int conflictPercent;

    @Option(names = "--work", paramLabel = "ROUNDS", defaultValue = "400",
            description = "Hash rounds of CPU work per command (default: ${DEFAULT-VALUE}, about a microsecond).")
    int workRounds;

    @Option(names = "--runs", paramLabel = "R", defaultValue = "3",
            description = "Timed runs per configuration, 1 to 100, interleaved; the median is reported "
                    + "(default: ${DEFAULT-VALUE}).")
    int rounds;

    @Override
    public Integer call() throws InterruptedException {
        DemoOptions options = validate();
        PrintWriter out = spec.commandLine().getOut();
        OutputFormat format = output.format(OutputFormat.TEXT, OutputFormat.CSV);
        if (format == OutputFormat.TEXT && !output.quiet()) {
            DemoReport.preamble(options, out);
        }
        List<DemoResult> results = new Demo(options).run();
        if (format == OutputFormat.TEXT) {
            DemoReport.table(results, out);
        } else {
            DemoReport.csv(results, out);
        }
        return 0;
    }

    private DemoOptions validate() {
        require(commands >= 1 && commands <= MAX_COMMANDS,
                "--commands must be from 1 to " + MAX_COMMANDS + ", got " + commands);
        int cbase = cbaseCommands != null ? cbaseCommands : Math.max(1, commands / 10);
        require(cbase >= 1 && cbase <= MAX_COMMANDS,
                "--cbase-commands must be from 1 to " + MAX_COMMANDS + ", got " + cbase);
        require(seed >= 0, "--seed must be at least 0, got " + seed);
        require(conflictPercent >= 0 && conflictPercent <= 100,
                "--conflict must be a percentage from 0 to 100, got " + conflictPercent);
        require(workRounds >= 0, "--work must be at least 0, got " + workRounds);
        require(rounds >= 1 && rounds <= 100, "--runs must be from 1 to 100, got " + rounds);
        return new DemoOptions(commands, cbase, seed, conflictPercent, workRounds, rounds);
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
