package io.psmr.scheduler;

/**
 * A batch taken from a {@link DependencyGraph} for execution: the handle a worker hands back to
 * {@link DependencyGraph#remove} when the batch has run.
 *
 * @param <C> the command type
 */
public interface PendingBatch<C extends Command> {

    /** The batch to execute. */
    Batch<C> batch();
}
