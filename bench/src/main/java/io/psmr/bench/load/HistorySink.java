package io.psmr.bench.load;

/**
 * Receives every operation of a load run as it completes, for a linearizability checker.
 *
 * <p><b>Threads.</b> Called by every client thread, concurrently: implementations must be
 * thread-safe. A slow sink slows the clients that call it (and so the run), which keeps it bounded.
 */
@FunctionalInterface
public interface HistorySink {

    /** A sink that keeps nothing. */
    HistorySink NONE = r -> { };

    /** One completed (or failed) operation. */
    void record(OpRecord op);
}
