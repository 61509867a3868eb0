package io.psmr.simulation.output;

import io.psmr.simulation.CellResult;
import io.psmr.simulation.PaperTable1;
import io.psmr.simulation.SimulationConfig;
import java.util.Locale;

/**
 * Writes a report as tables for people. Every simulated figure stands beside its analytic one.
 * Nothing run-dependent (time, threads) is printed here, so the same seed gives the same text.
 */
public final class TextWriter {

    private TextWriter() {
    }

    /** The text of a report. */
    public static String write(Report report) {
        return switch (report.kind()) {
            case TABLE1 -> table1(report);
            case SINGLE -> single(report.results().get(0), report.seed());
            case SWEEP -> sweep(report);
            case SIZING -> sizing(report);
        };
    }

    private static String table1(Report report) {
        StringBuilder sb = new StringBuilder();
        CellResult first = report.results().get(0);
        sb.append(Fmt.f("Table I of the core paper (§VII-D): conflict rate, K = %d keys, %d iterations per cell, seed %d%n",
                first.config().keys(), first.config().iterations(), report.seed()));
        sb.append(Fmt.f("%9s %3s %4s %9s %10s %9s %10s %9s %10s %9s%n", "bits", "g", "B", "paper", "simulated",
                "analytic", "sim-paper", "sim-anal", "false pos", "true"));
        int within = 0;
        for (CellResult r : report.results()) {
            SimulationConfig c = r.config();
            double diff = r.simulatedPct() - r.paperPct();
            boolean ok = Math.abs(diff) <= PaperTable1.TOLERANCE_PP;
            within += ok ? 1 : 0;
            sb.append(Fmt.f("%9d %3d %4d %8.2f%% %9.2f%% %8.2f%% %+7.2f pp%s %+6.2f pp %9.2f%% %8.3f%%%n",
                    c.bitmapBits(), c.graphSize(), c.batchSize(), r.paperPct(), r.simulatedPct(),
                    100 * r.analytic().bitmap(), diff, ok ? " " : "!", r.simulatedPct() - 100 * r.analytic().bitmap(),
                    r.falsePositivePct(), r.trueConflictPct()));
        }
        sb.append(Fmt.f("%d of %d cells within %.1f pp of the paper%s.%n", within, report.results().size(),
                PaperTable1.TOLERANCE_PP, within == report.results().size() ? "" : " (! marks the others)"));
        sb.append("analytic ~ 1 - (1 - 1/m)^(g*B^2) * exp(-g*B^2/K) (docs/simulation.md); false pos = bitmap conflicts without a shared key\n");
        return sb.toString();
    }

    private static String single(CellResult r, long seed) {
        SimulationConfig c = r.config();
        StringBuilder sb = new StringBuilder();
        sb.append(Fmt.f("Conflict rate: %s, %d iterations, seed %d%n", c.describe(), c.iterations(), seed));
        sb.append(Fmt.f("%-34s %10s %8s %10s %10s %10s%n", "granularity", "simulated", "s.e. pp", "analytic",
                "true", "false pos"));
        sb.append(row("exact keys", r.trueConflictPct(), Double.NaN, 100 * r.analytic().exactKeys(),
                r.trueConflictPct(), 0));
        sb.append(row("bitmap, " + c.bitmapBits() + " bits", r.simulatedPct(), r.standardErrorPct(),
                100 * r.analytic().bitmap(), r.trueConflictPct(), r.falsePositivePct()));
        if (c.partitions() > 0) {
            sb.append(row("partitions, key mod " + c.partitions(), r.partitionPct(), Double.NaN,
                    100 * r.analytic().partition(), r.trueConflictPct(), r.partitionPct() - r.trueConflictPct()));
        }
        if (c.readFraction() > 0) {
            String reads = Fmt.f(" (%.0f%% reads)", 100 * c.readFraction());
            sb.append(row("r/w exact keys" + reads, r.rwExactKeysPct(), Double.NaN, 100 * r.analytic().rwExactKeys(),
                    r.rwExactKeysPct(), 0));
            sb.append(row("r/w bitmaps, " + c.bitmapBits() + " bits", r.rwBitmapPct(), Double.NaN,
                    100 * r.analytic().rwBitmap(), r.rwExactKeysPct(), r.rwBitmapPct() - r.rwExactKeysPct()));
        }
        if (r.hasPaper()) {
            sb.append(Fmt.f("paper (Table I): %.2f%%, simulated - paper: %+.2f pp%n", r.paperPct(),
                    r.simulatedPct() - r.paperPct()));
        }
        return sb.toString();
    }

    private static String row(String name, double sim, double se, double analytic, double truePct, double fp) {
        return Fmt.f("%-34s %9.3f%% %8s %9.3f%% %9.3f%% %9.3f%%%n", name, sim,
                Double.isNaN(se) ? "" : Fmt.f("%.3f", se), analytic, truePct, fp);
    }

    private static String sweep(Report report) {
        StringBuilder sb = new StringBuilder();
        CellResult first = report.results().get(0);
        sb.append(Fmt.f("Sweep over %s %d..%d: K = %d keys (%s), %d iterations per point, seed %d%n",
                report.sweep().axis().cliName(), report.sweep().from(), report.sweep().to(), first.config().keys(),
                first.config().distribution().name().toLowerCase(Locale.ROOT), first.config().iterations(),
                report.seed()));
        sb.append(Fmt.f("%10s %4s %6s %10s %10s %9s %10s %9s%n", "bits", "g", "B", "simulated", "analytic",
                "sim-anal", "false pos", "true"));
        for (CellResult r : report.results()) {
            SimulationConfig c = r.config();
            sb.append(Fmt.f("%10d %4d %6d %9.3f%% %9.3f%% %+6.3f pp %9.3f%% %8.3f%%%n", c.bitmapBits(),
                    c.graphSize(), c.batchSize(), r.simulatedPct(), 100 * r.analytic().bitmap(),
                    r.simulatedPct() - 100 * r.analytic().bitmap(), r.falsePositivePct(), r.trueConflictPct()));
        }
        return sb.toString();
    }

    private static String sizing(Report report) {
        CellResult r = report.results().get(0);
        SimulationConfig c = r.config();
        StringBuilder sb = new StringBuilder();
        sb.append(Fmt.f("Smallest bitmap for a conflict rate <= %.4f%% with B=%d, g=%d, K=%d (%s):%n",
                100 * report.target(), c.batchSize(), c.graphSize(), c.keys(),
                c.distribution().name().toLowerCase(Locale.ROOT)));
        sb.append(Fmt.f("  m = %d bits (%d bytes)%n", report.sizing().bitmapBits(),
                (report.sizing().bitmapBits() + 7L) / 8));
        sb.append(Fmt.f("  analytic rate at m:     %.6f%%%n", 100 * report.sizing().analyticRate()));
        if (!Double.isNaN(report.sizing().analyticRateOneBitLess())) {
            sb.append(Fmt.f("  analytic rate at m - 1: %.6f%%%n", 100 * report.sizing().analyticRateOneBitLess()));
        }
        sb.append(Fmt.f("  simulated rate at m:    %.4f%% (s.e. %.4f pp, %d iterations, seed %d)%n",
                r.simulatedPct(), r.standardErrorPct(), c.iterations(), report.seed()));
        sb.append(Fmt.f("  of which true conflicts %.4f%%, false positives %.4f%%%n", r.trueConflictPct(),
                r.falsePositivePct()));
        return sb.toString();
    }
}
