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
 * @param <C> the command type
 * @param <R> the result type
 */
@FunctionalInterface
public interface Service<C extends Command, R> {

    /**
     * Executes {@code command}. An exception becomes a {@link CommandError.Kind#FAILED} result for
     * this command; the batch goes on with its next command. The exception must itself be
     * deterministic (the same on every replica) for replicas to answer alike.
     */
    R execute(C command) throws Exception;
}
