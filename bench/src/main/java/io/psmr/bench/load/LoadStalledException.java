package io.psmr.bench.load;

/**
 * A load run ended because no operation completed within its stall timeout, or its drain after the
 * duration took longer than that. Carries what did complete: the clients' {@link #result()} and,
 * once the runner has built it, the {@link #report()} (without digests: a stalled cluster is not
 * brought to quiescence). Operations still outstanding are recorded in the history with status
 * UNKNOWN.
 */
public final class LoadStalledException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final transient LoadResult result;
    private final transient LoadReport report;

    /** A stall with the clients' partial result. */
    public LoadStalledException(String message, LoadResult result) {
        this(message, result, null);
    }

    private LoadStalledException(String message, LoadResult result, LoadReport report) {
        super(message);
        this.result = result;
        this.report = report;
    }

    /** This stall with the report of what completed. */
    public LoadStalledException withReport(LoadReport r) {
        LoadStalledException e = new LoadStalledException(getMessage(), result, r);
        e.setStackTrace(getStackTrace());
        return e;
    }

    /** What the clients measured until the stall. */
    public LoadResult result() {
        return result;
    }

    /** The report of what completed, or null if the runner did not build one. */
    public LoadReport report() {
        return report;
    }
}
