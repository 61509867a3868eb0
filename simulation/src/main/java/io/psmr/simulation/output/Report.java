package io.psmr.simulation.output;

import io.psmr.simulation.BitmapSizing;
import io.psmr.simulation.CellResult;
import io.psmr.simulation.SweepSpec;
import java.util.List;

/**
 * Everything one {@code simulate} invocation found, for the text, CSV, JSON and chart writers.
 *
 * @param kind    which question was asked
 * @param seed    the global seed
 * @param results the cells, in run order
 * @param sweep   the sweep, for {@link Kind#SWEEP}; else null
 * @param target  the target rate (fraction), for {@link Kind#SIZING}; else NaN
 * @param sizing  the sizing answer, for {@link Kind#SIZING}; else null
 */
public record Report(Kind kind, long seed, List<CellResult> results, SweepSpec sweep, double target,
        BitmapSizing.Answer sizing) {

    /** The question a report answers. */
    public enum Kind {
        /** The paper's Table I. */
        TABLE1("table1"),
        /** One cell. */
        SINGLE("single"),
        /** A sweep over one parameter. */
        SWEEP("sweep"),
        /** The smallest bitmap for a target rate. */
        SIZING("sizing");

        private final String token;

        Kind(String token) {
            this.token = token;
        }

        /** The name used in JSON and file names. */
        public String cliName() {
            return token;
        }
    }

    /** The base name of files written for this report, e.g. {@code table1} or {@code sweep-bits}. */
    public String fileStem() {
        return kind == Kind.SWEEP ? "sweep-" + sweep.axis().cliName() : kind.cliName();
    }
}
