package io.psmr.simulation.output;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psmr.simulation.CellResult;
import io.psmr.simulation.SimulationConfig;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * Writes a report as one indented JSON object, with Jackson: {@code kind}, {@code seed}, optional
 * {@code sweep} and {@code sizing}, and {@code cells}, each with its parameters and its simulated
 * and analytic rates in percent. Rates are numbers with six decimals; a missing one (NaN) is null.
 * Stateless and thread-safe.
 */
public final class JsonWriter {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN).build();

    /** Two-space indents, {@code "name": value} (no space before the colon), one field per line. */
    private static final DefaultIndenter LINES = new DefaultIndenter("  ", "\n");
    private static final ObjectWriter WRITER = MAPPER.writer(new DefaultPrettyPrinter()
            .withSeparators(Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
            .withObjectIndenter(LINES).withArrayIndenter(LINES));

    private JsonWriter() {
    }

    /** The JSON text of a report, ending in a newline. */
    public static String write(Report report) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("kind", report.kind().cliName());
        o.put("seed", report.seed());
        if (report.sweep() != null) {
            o.putObject("sweep").put("axis", report.sweep().axis().cliName())
                    .put("from", report.sweep().from()).put("to", report.sweep().to());
        }
        if (report.sizing() != null) {
            o.putObject("sizing").put("target_pct", num(100 * report.target()))
                    .put("bitmap_bits", report.sizing().bitmapBits())
                    .put("analytic_pct", num(100 * report.sizing().analyticRate()))
                    .put("analytic_pct_one_bit_less", num(100 * report.sizing().analyticRateOneBitLess()));
        }
        ArrayNode cells = o.putArray("cells");
        for (CellResult r : report.results()) {
            cell(cells.addObject(), r);
        }
        try {
            return WRITER.writeValueAsString(o) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e); // a tree of plain values always writes
        }
    }

    private static void cell(ObjectNode o, CellResult r) {
        SimulationConfig c = r.config();
        o.put("bitmap_bits", c.bitmapBits());
        o.put("batch_size", c.batchSize());
        o.put("graph_size", c.graphSize());
        o.put("keys", c.keys());
        o.put("iterations", c.iterations());
        o.put("distribution", c.distribution().name().toLowerCase(Locale.ROOT));
        o.put("zipf_theta", num(c.zipfTheta()));
        o.put("read_fraction", num(c.readFraction()));
        o.put("partitions", c.partitions());
        o.put("simulated_pct", num(r.simulatedPct()));
        o.put("analytic_pct", num(100 * r.analytic().bitmap()));
        o.put("false_positive_pct", num(r.falsePositivePct()));
        o.put("true_conflict_pct", num(r.trueConflictPct()));
        o.put("analytic_false_positive_pct", num(100 * r.analytic().falsePositive()));
        o.put("analytic_true_conflict_pct", num(100 * r.analytic().exactKeys()));
        o.put("std_error_pp", num(r.standardErrorPct()));
        o.put("rw_bitmap_pct", num(r.rwBitmapPct()));
        o.put("analytic_rw_bitmap_pct", num(100 * r.analytic().rwBitmap()));
        o.put("rw_true_conflict_pct", num(r.rwExactKeysPct()));
        o.put("analytic_rw_true_conflict_pct", num(100 * r.analytic().rwExactKeys()));
        if (c.partitions() > 0) {
            o.put("partition_pct", num(r.partitionPct()));
            o.put("analytic_partition_pct", num(100 * r.analytic().partition()));
        }
        if (r.hasPaper()) {
            o.put("paper_pct", num(r.paperPct()));
            o.put("difference_pp", num(r.simulatedPct() - r.paperPct()));
        }
    }

    /** {@code v} with six decimals, or null: JSON has no NaN, and a missing figure is null. */
    private static BigDecimal num(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : new BigDecimal(v).setScale(6, RoundingMode.HALF_UP);
    }
}
