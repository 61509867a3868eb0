package io.psmr.bench.faults;

import io.psmr.ordering.pbft.LeaderSelection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code psmr bench faults}: PBFT's throughput under each fault, one scenario after the other, each on a new
 * process cluster in {@code <results>/clusters/<fault>/} ({@link FaultRun}). Called from one thread.
 */
public final class FaultBench {

    /** The folder, under the results folder, of the scenarios' clusters. */
    public static final String CLUSTERS = "clusters";

    private final FaultSettings settings;
    private final Path results;

    /** A benchmark of {@code settings} writing into {@code results}. */
    public FaultBench(FaultSettings settings, Path results) {
        this.settings = settings;
        this.results = results;
    }

    /** Runs every scenario in order, handing each result to {@code done} as it is known; returns the report. */
    public FaultReport run(Consumer<ScenarioResult> done) throws InterruptedException {
        List<ScenarioResult> out = new ArrayList<>();
        for (FaultScenario s : settings.scenarios()) {
            for (LeaderSelection selection : settings.selections()) {
                String dir = settings.selections().size() == 1 ? s.name() : s.name() + "-" + selection.cliName();
                ScenarioResult r = FaultRun.run(settings, s, selection, results.resolve(CLUSTERS).resolve(dir));
                out.add(r);
                done.accept(r);
            }
        }
        return FaultReport.of(settings, out);
    }

    /**
     * About how long a run takes, in seconds: each scenario's windows plus a guess of 20 s for a cluster's start and
     * stop, which takes longer on a busy machine.
     */
    public long estimateSeconds() {
        long total = 0;
        for (FaultScenario s : settings.scenarios()) {
            total += settings.selections().size() * (settings.faultFree().toSeconds() + settings.faulty().toSeconds() + 20);
        }
        return total;
    }
}
