package io.psmr.bench.demo;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** Prints demo results as a table for people or as CSV for tools. */
public final class DemoReport {

    /** The CSV header; one row per configuration follows it. */
    public static final String CSV_HEADER = "mode,graph,batch,workers,throughput_cps";

    private DemoReport() {
    }

    /** The header, then one row per result: the median throughput, rounded to whole commands per second. */
    public static void csv(List<DemoResult> results, PrintWriter out) {
        out.println(CSV_HEADER);
        for (DemoResult r : results) {
            DemoConfig c = r.config();
            out.printf(Locale.ROOT, "%s,%s,%d,%d,%d%n", c.mode(), c.graphLabel(), c.batchSize(), c.workers(),
                    Math.round(r.median()));
        }
        out.flush();
    }

    /** What the demo runs, printed before the table. */
    public static void preamble(DemoOptions o, PrintWriter out) {
        out.printf(Locale.ROOT, "psmr demo: synthetic single-key commands through the scheduler, in process%n");
        out.printf(Locale.ROOT, "  workload: %,d commands (CBASE: %,d), 50%% writes, keys uniform over %,d keys, "
                + "%d%% of batches also write one hot key, seed %d%n", o.commands(), o.cbaseCommands(), Workload.KEY_SPACE,
                o.conflictPercent(), o.seed());
        out.printf(Locale.ROOT, "  service:  %,d hash rounds of CPU work per command, then a read or update of the key%n",
                o.workRounds());
        out.printf(Locale.ROOT, "  machine:  %d available processors, Java %s%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        out.printf(Locale.ROOT, "  method:   batches and summaries built before timing, one delivery thread at "
                + "saturation, 1 warm-up run, then %d timed run%s per configuration, interleaved%n",
                o.rounds(), o.rounds() == 1 ? "" : "s");
        out.println();
        out.flush();
    }

    /** A table: the median, min and max throughput, and the median's ratio to the sequential median. */
    public static void table(List<DemoResult> results, PrintWriter out) {
        double sequential = results.stream().filter(r -> r.config().sequential()).mapToDouble(DemoResult::median)
                .findFirst().orElse(Double.NaN);
        String format = "%-11s  %-7s  %5s  %7s  %14s  %-23s  %13s%n";
        out.printf(Locale.ROOT, format, "mode", "graph", "batch", "workers", "median cmd/s", "min - max cmd/s",
                "vs sequential");
        out.printf(Locale.ROOT, format, "-".repeat(11), "-".repeat(7), "-".repeat(5), "-".repeat(7), "-".repeat(14),
                "-".repeat(23), "-".repeat(13));
        for (DemoResult r : results) {
            DemoConfig c = r.config();
            out.printf(Locale.ROOT, format, c.mode(), c.graphLabel(), c.batchSize(), c.workers(),
                    String.format(Locale.ROOT, "%,d", Math.round(r.median())),
                    String.format(Locale.ROOT, "%,d - %,d", Math.round(r.min()), Math.round(r.max())),
                    String.format(Locale.ROOT, "%.2fx", r.median() / sequential));
        }
        out.println();
        out.println("  sequential:  no graph, no workers: the delivery thread executes each batch (the baseline)");
        out.println("  cbase:       CBASE-style: batch 1, exact keys compared pairwise (KEYS_PAIRWISE), monitor graph");
        out.println("  keys_hashed: exact keys in hashed key sets (KEYS_HASHED)");
        out.printf(Locale.ROOT, "  bitmap:      one Roaring Bloom bitmap of %,d bits per batch (BITMAP)%n", Demo.BITMAP_BITS);
        out.printf(Locale.ROOT, "  rw_bitmap:   Roaring read and write bitmaps of %,d bits per batch (RW_BITMAP)%n",
                Demo.BITMAP_BITS);
        out.println("  Every run's final state was checked against sequential execution of the same commands.");
        out.println("  Parallel runs share the cores with the delivery thread; the limit is sequential x usable cores.");
        out.flush();
    }
}
