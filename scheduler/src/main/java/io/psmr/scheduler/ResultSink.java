package io.psmr.scheduler;

/**
 * Receives the outcome of every delivered command, identified by its batch's instance and its index
 * in the batch.
 *
 * <p><b>Threads.</b> Called from worker threads, concurrently for batches that do not conflict, and
 * from the delivery thread for a rejected batch (or for every batch in sequential mode). Results of
 * one batch arrive in command order, from one thread, followed by {@link #onBatchComplete}. The
 * sink must not block for long: a worker is held while it runs. An exception thrown by the sink is
 * logged and otherwise ignored.
 *
 * @param <C> the command type
 * @param <R> the result type
 */
public interface ResultSink<C extends Command, R> {

    /** The command at {@code index} of batch {@code instance} returned {@code result}. */
    void onResult(long instance, int index, C command, R result);

    /** The command at {@code index} of batch {@code instance} did not complete. */
    void onError(long instance, int index, C command, CommandError error);

    /** Every command of {@code batch} has been reported, and its batch has left the graph. */
    default void onBatchComplete(Batch<C> batch) {
    }

    /** A sink that drops everything. */
    static <C extends Command, R> ResultSink<C, R> discarding() {
        return new ResultSink<>() {
            @Override
            public void onResult(long instance, int index, C command, R result) {
            }

            @Override
            public void onError(long instance, int index, C command, CommandError error) {
            }
        };
    }
}
