package io.psmr.bench.scheduler;

import java.util.List;
import java.util.Locale;

/**
 * Where the parallel cells' conflict summaries are built ({@code psmr bench --summaries}): before
 * timing ({@link #PRE}, as a replica receives them from the client proxy), by a summary stage inside
 * the timed loop ({@link #TIMED}, as a replica's decode path builds or verifies them: {@link SummaryStage}),
 * or both, as two cells each.
 */
public enum SummaryTiming {
    /** Built once before timing; only the scheduler is timed. */
    PRE,
    /** Built per batch inside the timed loop by a summary stage ahead of the delivery thread, with one reused builder. */
    TIMED,
    /** Every parallel cell twice: once {@link #PRE}, once {@link #TIMED}. */
    BOTH;

    /** The name on the command line. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The values of {@link Cell#summaryTimed()} this planning produces, pre first. */
    public List<Boolean> timedFlags() {
        return switch (this) {
            case PRE -> List.of(false);
            case TIMED -> List.of(true);
            case BOTH -> List.of(false, true);
        };
    }

    /** The setting named {@code name} on the command line, or null. */
    public static SummaryTiming parse(String name) {
        for (SummaryTiming t : values()) {
            if (t.cliName().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
