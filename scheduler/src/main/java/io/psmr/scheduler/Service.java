package io.psmr.scheduler;

/**
 * The replicated service: executes one command against the replica's state.
 *
 * <p><b>Threads.</b> Called from the scheduler's worker threads. Two commands run concurrently only
 * if their batches do not conflict under the scheduler's {@link ConflictMode}, so the service must
 * be safe for concurrent calls on disjoint keys (for example a concurrent map), and need not lock
 * per key. Commands of one batch run one after another on one thread.
 *
 * <p><b>Determinism.</b> The result and the state change must depend only on the command and the
 * state of the keys it declares, never on time, thread identity or randomness; otherwise replicas
 * diverge.
 *
 * <p><b>Failures.</b> A command that fails the same way everywhere (a refused argument, a business
 * rule) is answered, not thrown: return a result that says so, or throw {@link DeterministicFailure},
 * which the scheduler reports as {@link CommandError.Kind#FAILED}. Any other exception (an I/O
 * error, a full store, a bug) could happen on one replica and not on another, so the scheduler
 * treats it as the end of this replica: it <b>fail-stops</b>, runs nothing more, and reports the
 * exception from {@link Scheduler#failure()}. A replica that serves diverged state is worse than one
 * that stops; the others go on, and the stopped one comes back from a checkpoint.
 *
 * @param <C> the command type
 * @param <R> the result type
 */
@FunctionalInterface
public interface Service<C extends Command, R> {

    /**
     * Executes {@code command}.
     *
     * @throws DeterministicFailure if the command fails the same way on every replica: a
     *         {@link CommandError.Kind#FAILED} result for this command, and the batch goes on
     * @throws Exception            anything else fail-stops the scheduler (see the class comment)
     */
    R execute(C command) throws Exception;
}
