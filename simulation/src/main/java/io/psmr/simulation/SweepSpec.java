package io.psmr.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A sweep over one parameter, written {@code bits=FROM..TO}, {@code batch=FROM..TO} or
 * {@code graph=FROM..TO}. Bitmap sizes are spaced geometrically, because the conflict rate moves
 * with log m; batch and graph sizes linearly. Values are rounded to integers and repeated ones
 * dropped, so a narrow range may give fewer than {@code points} values.
 *
 * @param axis   the parameter swept
 * @param from   first value, {@code >= 1} for bits and batch, {@code >= 0} for graph
 * @param to     last value, {@code >= from}
 * @param points how many values at most, {@code >= 2} unless {@code from == to}
 */
public record SweepSpec(Axis axis, int from, int to, int points) {

    /** What a sweep varies. */
    public enum Axis {
        /** The bitmap size m. */
        BITS("bits", "bitmap size (bits)"),
        /** The batch size B. */
        BATCH("batch", "batch size (keys)"),
        /** The graph size g. */
        GRAPH("graph", "graph size (batches)");

        private final String token;
        private final String label;

        Axis(String token, String label) {
            this.token = token;
            this.label = label;
        }

        /** The name used on the command line and in file names. */
        public String cliName() {
            return token;
        }

        /** The axis title of a chart. */
        public String title() {
            return label;
        }
    }

    /** Validates the range. */
    public SweepSpec {
        int min = axis == Axis.GRAPH ? 0 : 1;
        if (from < min || to < from) {
            throw new IllegalArgumentException(
                    "range must satisfy " + min + " <= FROM <= TO, got " + from + ".." + to);
        }
        if (points < 1) {
            throw new IllegalArgumentException("points must be >= 1, got " + points);
        }
    }

    /**
     * Parses {@code AXIS=FROM..TO}.
     *
     * @throws IllegalArgumentException saying what is wrong with the text
     */
    public static SweepSpec parse(String text, int points) {
        int eq = text.indexOf('=');
        int dots = text.indexOf("..");
        if (eq < 0 || dots < eq) {
            throw new IllegalArgumentException("expected AXIS=FROM..TO (AXIS one of bits, batch, graph), got '" + text + "'");
        }
        String name = text.substring(0, eq).trim().toLowerCase(Locale.ROOT);
        Axis axis = null;
        for (Axis a : Axis.values()) {
            if (a.token.equals(name)) {
                axis = a;
            }
        }
        if (axis == null) {
            throw new IllegalArgumentException("unknown sweep axis '" + name + "', expected bits, batch or graph");
        }
        int from;
        int to;
        try {
            from = Integer.parseInt(text.substring(eq + 1, dots).trim());
            to = Integer.parseInt(text.substring(dots + 2).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("FROM and TO must be integers, got '" + text + "'");
        }
        return new SweepSpec(axis, from, to, points);
    }

    /** The values of the sweep, increasing and distinct. */
    public List<Integer> values() {
        List<Integer> out = new ArrayList<>();
        if (from == to || points == 1) {
            out.add(from);
            if (to != from) {
                out.add(to);
            }
            return out;
        }
        for (int i = 0; i < points; i++) {
            double t = (double) i / (points - 1);
            double v = axis == Axis.BITS
                    ? Math.exp(Math.log(from) + t * (Math.log(to) - Math.log(from)))
                    : from + t * (to - from);
            int rounded = i == points - 1 ? to : (int) Math.round(v);
            if (out.isEmpty() || out.get(out.size() - 1) < rounded) {
                out.add(rounded);
            }
        }
        return out;
    }

    /** The cell of {@code base} at sweep value {@code v}. */
    public SimulationConfig apply(SimulationConfig base, int v) {
        return switch (axis) {
            case BITS -> base.withBitmapBits(v);
            case BATCH -> base.withBatchSize(v);
            case GRAPH -> base.withGraphSize(v);
        };
    }

    /** The swept value of a cell. */
    public int valueOf(SimulationConfig c) {
        return switch (axis) {
            case BITS -> c.bitmapBits();
            case BATCH -> c.batchSize();
            case GRAPH -> c.graphSize();
        };
    }
}
