package io.psmr.simulation.output;

import io.psmr.simulation.CellResult;
import io.psmr.simulation.SimulationConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes a report as CSV, one row per cell. The header starts with the columns issue 3 fixes,
 * {@code bitmap_bits,batch_size,graph_size,keys,iterations,simulated_pct,analytic_pct,false_positive_pct,true_conflict_pct};
 * Table I adds {@code paper_pct} and {@code difference_pp} right after; every report then adds the
 * other granularities and the model parameters. Percentages are percent, not fractions.
 */
public final class CsvWriter {

    /** The columns every report starts with, in this order. */
    public static final String BASE_HEADER =
            "bitmap_bits,batch_size,graph_size,keys,iterations,simulated_pct,analytic_pct,false_positive_pct,true_conflict_pct";

    private static final String EXTRA_HEADER = "analytic_false_positive_pct,analytic_true_conflict_pct,std_error_pp,"
            + "distribution,zipf_theta,read_fraction,rw_bitmap_pct,analytic_rw_bitmap_pct,rw_true_conflict_pct,"
            + "analytic_rw_true_conflict_pct,partitions,partition_pct,analytic_partition_pct,seed";

    private CsvWriter() {
    }

    /** The CSV text of a report, header first, lines ending in {@code \n}. */
    public static String write(Report report) {
        boolean table1 = report.kind() == Report.Kind.TABLE1;
        boolean sizing = report.kind() == Report.Kind.SIZING;
        StringBuilder sb = new StringBuilder(BASE_HEADER);
        if (table1) {
            sb.append(",paper_pct,difference_pp");
        }
        sb.append(',').append(EXTRA_HEADER);
        if (sizing) {
            sb.append(",target_pct");
        }
        sb.append('\n');
        for (CellResult r : report.results()) {
            SimulationConfig c = r.config();
            List<String> row = new ArrayList<>();
            row.add(Integer.toString(c.bitmapBits()));
            row.add(Integer.toString(c.batchSize()));
            row.add(Integer.toString(c.graphSize()));
            row.add(Long.toString(c.keys()));
            row.add(Long.toString(c.iterations()));
            row.add(Fmt.pct(r.simulatedPct()));
            row.add(Fmt.pct(100 * r.analytic().bitmap()));
            row.add(Fmt.pct(r.falsePositivePct()));
            row.add(Fmt.pct(r.trueConflictPct()));
            if (table1) {
                row.add(Fmt.pct(r.paperPct()));
                row.add(Fmt.pct(r.simulatedPct() - r.paperPct()));
            }
            row.add(Fmt.pct(100 * r.analytic().falsePositive()));
            row.add(Fmt.pct(100 * r.analytic().exactKeys()));
            row.add(Fmt.pct(r.standardErrorPct()));
            row.add(c.distribution().name().toLowerCase(Locale.ROOT));
            row.add(Double.toString(c.zipfTheta()));
            row.add(Double.toString(c.readFraction()));
            row.add(Fmt.pct(r.rwBitmapPct()));
            row.add(Fmt.pct(100 * r.analytic().rwBitmap()));
            row.add(Fmt.pct(r.rwExactKeysPct()));
            row.add(Fmt.pct(100 * r.analytic().rwExactKeys()));
            row.add(Integer.toString(c.partitions()));
            row.add(c.partitions() > 0 ? Fmt.pct(r.partitionPct()) : "");
            row.add(c.partitions() > 0 ? Fmt.pct(100 * r.analytic().partition()) : "");
            row.add(Long.toString(report.seed()));
            if (sizing) {
                row.add(Fmt.pct(100 * report.target()));
            }
            sb.append(String.join(",", row)).append('\n');
        }
        return sb.toString();
    }
}
