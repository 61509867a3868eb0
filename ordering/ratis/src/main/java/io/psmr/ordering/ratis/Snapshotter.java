package io.psmr.ordering.ratis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Writes and reads the application's replicated state for {@link PsmrStateMachine}'s snapshots:
 * everything that depends on the log (the service's store, an exactly-once table, ...), nothing
 * that does not (caches of derived data, metrics).
 *
 * <p><b>Threads.</b> Called on Ratis' state machine updater thread while the scheduler is
 * quiescent: no command executes and no entry is decoded during either call.
 */
public interface Snapshotter {

    /** Writes the whole state to {@code out}; do not close it. */
    void save(OutputStream out) throws IOException;

    /**
     * Replaces the whole state with the one {@link #save} wrote to {@code in}; do not close it.
     *
     * @throws IOException if the content is not a snapshot this application wrote
     */
    void restore(InputStream in) throws IOException;
}
