package io.psmr.bench.faults;

import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OptionRanges;
import io.psmr.bench.cli.OutputFormat;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.bench.cli.PsmrMain;
import io.psmr.bench.cli.ResultsDir;
import io.psmr.bench.cli.RotationConverter;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.LeaderSelection;
import io.psmr.bench.cli.LeaderSelectionConverter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr bench faults}: PBFT's throughput under each fault it tolerates, see {@link FaultBench} and
 * {@link FaultRun}.
 *
 * <p>Exit codes: 0 every scenario ran, 1 a scenario could not run (its cluster did not start, its load stalled, a
 * cued Byzantine replica did not act in time: each named on stderr; the others still run and are reported) or the results
 * cannot be written, 2 bad usage, with a message naming the flag.
 */
@Command(name = "faults",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "PBFT's throughput under faults: for each fault, a new PBFT process cluster under closed-loop load, the "
                + "fault injected on f replicas after the fault-free window, the load stopped after the faulty window.",
            "",
            "Faults: crash (SIGKILL), pause (SIGSTOP for the faulty window, then SIGCONT), and each Byzantine mode "
                + "(the replica starts as a dormant Byzantine replica in that mode, correct until the onset, when it is "
                + "cued and turns Byzantine without a restart). The targets are "
                + "f replicas (1 of 4, 2 of 7) chosen by --seed, the same in every scenario.",
            "",
            "Reports per fault: throughput over the fault-free window (less its first --warmup), over the "
                + "faulty window, their fraction; over 1 s windows, the time from the onset until the first one back at "
                + "0.8 of fault-free, the time until one from which all hold 0.8 (or never), and the share of windows "
                + "below 0.8 in the fault-free and in the faulty window; p50/p99 latency in both windows. Prints a table; "
                + "writes faults.json, summary.md, faults-timeline.png (one panel per fault) and timeline-<fault>.png to "
                + "<out>/bench-faults-<timestamp>/, with each cluster (logs, status) under clusters/<fault>/.",
            "",
            "The load is ./psmr load's defaults but the clients: 50%% READs, 5%% MULTI_PUTs of 4 keys, the rest "
                + "CREATE/UPDATE/DELETE over 10,000 keys, batches of up to 200, a window of 1. A scenario whose load "
                + "completes nothing for 10 s fails, naming what it cannot hear from.",
            "",
            "Default: crash, pause and every Byzantine mode on 4 replicas x 2 pillars, rotating leaders, 16 clients, "
                + "40 s + 20 s of load per fault (the first 30 s warm the JVMs and are not measured), plus each "
                + "cluster's start and stop.",
            ""})
public final class FaultsCommand implements Callable<Integer> {

    /** The most replicas: as {@code cluster start}'s {@code --replicas}. */
    static final int MAX_REPLICAS = 16;
    /** The most clients. */
    static final int MAX_CLIENTS = 10_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "4",
            description = "PBFT replicas, 3f+1: 4 (f = 1), 7 (f = 2), ... up to " + MAX_REPLICAS
                    + "; each fault strikes f of them (default: ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--pillars", paramLabel = "N", defaultValue = "2",
            description = "COP pillars per replica, " + OptionRanges.PILLARS + " (default: ${DEFAULT-VALUE}).")
    int pillars;

    @Option(names = "--leader-rotation", paramLabel = "ROTATION", defaultValue = "rotating", converter = RotationConverter.class,
            description = "rotating (COP: every replica leads instances in turn) or fixed (one primary) (default: ${DEFAULT-VALUE}).")
    LeaderRotation rotation;

    @Option(names = "--leader-selection", paramLabel = "LIST", split = ",", defaultValue = "blacklist",
            converter = LeaderSelectionConverter.class,
            description = "Comma-separated PBFT leader selections, each scenario run once per selection in this order: "
                    + "blacklist (suspected leaders kept out for a backoff), all (every replica leads in turn); "
                    + "blacklist,all compares them in one run (default: ${DEFAULT-VALUE}).")
    List<LeaderSelection> selections;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "16",
            description = "Closed-loop clients, one thread each, 1 to " + MAX_CLIENTS + " (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--fault-free", paramLabel = "TIME", defaultValue = "40s", converter = DurationConverter.class,
            description = "Load before the fault, 2s to 10m in steps of 100ms; its first --warmup is not measured "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration faultFree;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "The start of the fault-free window: what completes before it is not measured, 0s to "
                    + "--fault-free minus 1s in steps of 100ms (default: all but the last 10 s of --fault-free, at least a quarter "
                    + "of it).")
    Duration warmup;

    @Option(names = "--faulty", paramLabel = "TIME", defaultValue = "20s", converter = DurationConverter.class,
            description = "Load from the fault's onset, 2s to 10m in steps of 100ms (default: ${DEFAULT-VALUE}).")
    Duration faulty;

    @Option(names = "--faults", paramLabel = "FAULT", split = ",",
            description = "Faults to run, comma-separated, in this order: crash, pause, or a Byzantine mode (default: "
                    + "all of them: ${COMPLETION-CANDIDATES}).",
            completionCandidates = FaultNames.class)
    List<String> faults;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42",
            description = "Seed of the faulted replicas' choice and of the clients (default: ${DEFAULT-VALUE}).")
    long seed;

    /** --format text or json (faults.json on stdout), --quiet. */
    @Mixin
    OutputOptions output;

    /** --out: the folder that receives bench-faults-&lt;timestamp&gt;/. */
    @Mixin
    OutputOptions.OutDir out;

    /** The fault names, for the help text. */
    static final class FaultNames extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        public FaultNames() {
            super(FaultScenario.all().stream().map(FaultScenario::name).toList());
        }
    }

    @Override
    public Integer call() throws InterruptedException, IOException {
        FaultSettings settings = validate();
        OutputFormat format = output.format(OutputFormat.TEXT, OutputFormat.JSON);
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        String timestamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = ResultsDir.unique(settings.outDir(), "bench-faults-" + timestamp);
        Files.createDirectories(dir.resolve(FaultBench.CLUSTERS));
        FaultBench bench = new FaultBench(settings, dir);
        if (format == OutputFormat.TEXT) {
            o.println(name + ": " + FaultReport.of(settings, List.of()).machine());
            o.printf(Locale.ROOT, "%d %s (%s) on %s; about %d s%n", settings.scenarios().size(),
                    settings.scenarios().size() == 1 ? "fault" : "faults",
                    settings.scenarios().stream().map(FaultScenario::name).collect(Collectors.joining(", ")),
                    String.join(" and ", settings.targets()), bench.estimateSeconds());
            o.flush();
        }
        int[] n = {0};
        boolean compares = settings.selections().size() > 1;
        List<String> runs = new ArrayList<>(); // what each run does, in the order FaultBench runs them
        for (FaultScenario s : settings.scenarios()) {
            for (LeaderSelection selection : settings.selections()) {
                runs.add((compares ? s + " (" + selection.cliName() + ")" : s.toString()) + ": " + s.describe(settings.targets()));
            }
        }
        if (!output.quiet()) {
            err.printf(Locale.ROOT, "%s: [1/%d] %s%n", name, runs.size(), runs.get(0));
            err.flush();
        }
        FaultReport report = bench.run(r -> {
            n[0]++;
            if (!output.quiet()) {
                err.printf(Locale.ROOT, "%s: %s %s%n", name, r.label(compares), r.ok()
                        ? String.format(Locale.ROOT, "done: %s -> %s op/s (%s), first at 0.8: %s, holds 0.8: %s; the "
                                + "cluster started in %s, fault: %s", FaultReport.rate(r.faultFreeOps()),
                                FaultReport.rate(r.faultyOps()), FaultReport.ratio(r.fraction()), FaultReport.firstBack(r),
                                FaultReport.recovery(r),
                                FaultReport.seconds(r.startMillis()), FaultReport.onset(r))
                        : "FAILED: " + r.error());
                if (n[0] < runs.size()) {
                    err.printf(Locale.ROOT, "%s: [%d/%d] %s%n", name, n[0] + 1, runs.size(), runs.get(n[0]));
                }
                err.flush();
            }
        });
        List<Path> files = new ArrayList<>(report.write(dir));
        files.addAll(FaultCharts.write(dir, report));
        if (format == OutputFormat.JSON) {
            o.println(report.toJson());
        } else {
            o.println();
            report.table(o);
            o.println();
            o.println("wrote " + files.stream().map(Path::toString).collect(Collectors.joining(", ")));
        }
        o.flush();
        List<ScenarioResult> failed = report.failed();
        if (!failed.isEmpty()) {
            err.println(name + ": " + failed.size() + " of " + report.scenarios().size() + " faults could not run: "
                    + failed.stream().map(r -> r.scenario() + ": " + r.error()).collect(Collectors.joining("; ")));
            err.flush();
            return PsmrMain.EXIT_FAILURE;
        }
        return 0;
    }

    /** Checks every flag; a bad one is a usage error naming it. */
    FaultSettings validate() {
        output.format(OutputFormat.TEXT, OutputFormat.JSON);
        require(replicas >= 4 && (replicas - 1) % 3 == 0 && replicas <= MAX_REPLICAS,
                "--replicas must be 3f+1 with f >= 1 (4, 7, 10, 13 or 16), got " + replicas);
        OptionRanges.pillars(spec.commandLine(), pillars);
        require(clients >= 1 && clients <= MAX_CLIENTS, "--clients must be from 1 to " + MAX_CLIENTS + ", got " + clients);
        window("--fault-free", faultFree);
        window("--faulty", faulty);
        Duration w = warmup != null ? warmup : FaultSettings.defaultWarmup(faultFree);
        require(!w.isNegative() && w.plusSeconds(1).compareTo(faultFree) <= 0
                        && w.toMillis() % CompletionTimeline.BUCKET_MILLIS == 0,
                "--warmup must be from 0s to --fault-free (" + DurationConverter.format(faultFree)
                        + ") minus 1s in steps of 100ms, got " + DurationConverter.format(w));
        List<FaultScenario> scenarios = new ArrayList<>();
        if (faults == null || faults.isEmpty()) {
            scenarios.addAll(FaultScenario.all());
        } else {
            for (String f : faults) {
                FaultScenario s;
                try {
                    s = FaultScenario.fromName(f.trim());
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--faults: " + e.getMessage());
                }
                require(!scenarios.contains(s), "--faults lists " + s.name() + " twice");
                scenarios.add(s);
            }
        }
        require(selections.stream().distinct().count() == selections.size(), "--leader-selection lists a selection twice");
        return new FaultSettings(replicas, pillars, rotation, selections, clients, faultFree, w, faulty, scenarios, seed, out.path(),
                Runtime.getRuntime().availableProcessors());
    }

    private void window(String flag, Duration d) {
        require(d.toMillis() >= 2000 && d.toMillis() <= 600_000 && d.toMillis() % CompletionTimeline.BUCKET_MILLIS == 0,
                flag + " must be from 2s to 10m in steps of 100ms, got " + DurationConverter.format(d));
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
