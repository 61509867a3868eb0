package io.psmr.simulation.output;

import java.util.Locale;

/** Number formatting shared by the writers: always {@link Locale#ROOT}, so output never depends on the user's locale. */
final class Fmt {

    private Fmt() {
    }

    /** A percentage with four decimals, as machines read it. */
    static String pct(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
    }

    /** Any formatted string in the root locale. */
    static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
