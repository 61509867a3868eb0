package io.psmr.simulation.output;

import io.psmr.simulation.CellResult;
import io.psmr.simulation.SimulationConfig;
import java.util.Locale;

/**
 * Writes a report as one JSON object: {@code kind}, {@code seed}, optional {@code sweep} and
 * {@code sizing}, and {@code cells}, each with its parameters and its simulated and analytic rates
 * in percent. Hand-written because the shape is small and fixed, and a JSON library would be the
 * module's only reason to carry one.
 */
public final class JsonWriter {

    private JsonWriter() {
    }

    /** The JSON text of a report, ending in a newline. */
    public static String write(Report report) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"kind\": \"").append(report.kind().token()).append("\",\n");
        sb.append("  \"seed\": ").append(report.seed()).append(",\n");
        if (report.sweep() != null) {
            sb.append("  \"sweep\": {\"axis\": \"").append(report.sweep().axis().token()).append("\", \"from\": ")
                    .append(report.sweep().from()).append(", \"to\": ").append(report.sweep().to()).append("},\n");
        }
        if (report.sizing() != null) {
            sb.append("  \"sizing\": {\"target_pct\": ").append(num(100 * report.target()))
                    .append(", \"bitmap_bits\": ").append(report.sizing().bitmapBits())
                    .append(", \"analytic_pct\": ").append(num(100 * report.sizing().analyticRate()))
                    .append(", \"analytic_pct_one_bit_less\": ")
                    .append(num(100 * report.sizing().analyticRateOneBitLess())).append("},\n");
        }
        sb.append("  \"cells\": [");
        String sep = "\n";
        for (CellResult r : report.results()) {
            sb.append(sep);
            sep = ",\n";
            cell(sb, r);
        }
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    private static void cell(StringBuilder sb, CellResult r) {
        SimulationConfig c = r.config();
        sb.append("    {");
        field(sb, "bitmap_bits", Integer.toString(c.bitmapBits()), true);
        field(sb, "batch_size", Integer.toString(c.batchSize()), false);
        field(sb, "graph_size", Integer.toString(c.graphSize()), false);
        field(sb, "keys", Long.toString(c.keys()), false);
        field(sb, "iterations", Long.toString(c.iterations()), false);
        field(sb, "distribution", "\"" + c.distribution().name().toLowerCase(Locale.ROOT) + "\"", false);
        field(sb, "zipf_theta", num(c.zipfTheta()), false);
        field(sb, "read_fraction", num(c.readFraction()), false);
        field(sb, "partitions", Integer.toString(c.partitions()), false);
        field(sb, "simulated_pct", num(r.simulatedPct()), false);
        field(sb, "analytic_pct", num(100 * r.analytic().bitmap()), false);
        field(sb, "false_positive_pct", num(r.falsePositivePct()), false);
        field(sb, "true_conflict_pct", num(r.trueConflictPct()), false);
        field(sb, "analytic_false_positive_pct", num(100 * r.analytic().falsePositive()), false);
        field(sb, "analytic_true_conflict_pct", num(100 * r.analytic().exactKeys()), false);
        field(sb, "std_error_pp", num(r.standardErrorPct()), false);
        field(sb, "rw_bitmap_pct", num(r.rwBitmapPct()), false);
        field(sb, "analytic_rw_bitmap_pct", num(100 * r.analytic().rwBitmap()), false);
        field(sb, "rw_true_conflict_pct", num(r.rwExactKeysPct()), false);
        field(sb, "analytic_rw_true_conflict_pct", num(100 * r.analytic().rwExactKeys()), false);
        if (c.partitions() > 0) {
            field(sb, "partition_pct", num(r.partitionPct()), false);
            field(sb, "analytic_partition_pct", num(100 * r.analytic().partition()), false);
        }
        if (r.hasPaper()) {
            field(sb, "paper_pct", num(r.paperPct()), false);
            field(sb, "difference_pp", num(r.simulatedPct() - r.paperPct()), false);
        }
        sb.append('}');
    }

    private static void field(StringBuilder sb, String name, String value, boolean first) {
        if (!first) {
            sb.append(", ");
        }
        sb.append('"').append(name).append("\": ").append(value);
    }

    private static String num(double v) {
        // JSON has no NaN; a missing figure is null.
        return Double.isNaN(v) || Double.isInfinite(v) ? "null" : String.format(Locale.ROOT, "%.6f", v);
    }
}
