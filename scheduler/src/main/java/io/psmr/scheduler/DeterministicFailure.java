package io.psmr.scheduler;

/**
 * Thrown by a {@link Service} to say that a command fails the same way on every replica: the
 * failure depends only on the command and the state of the keys it declares, never on timing,
 * memory, I/O or the replica it runs on. The scheduler answers it as a
 * {@link CommandError.Kind#FAILED} result for this command, with this exception's message, and
 * the batch goes on with its next command.
 *
 * <p>Any other exception from a service means the replica can no longer be trusted (its state may
 * now differ from the other replicas'), so the scheduler fail-stops instead: see {@link Service}.
 * A service must leave the state unchanged by a command that throws this, or changed in a way that
 * every replica repeats.
 */
public class DeterministicFailure extends Exception {

    private static final long serialVersionUID = 1L;

    /** A deterministic failure, with a message naming the problem. */
    public DeterministicFailure(String message) {
        super(message);
    }

    /** A deterministic failure, with a message naming the problem and its cause. */
    public DeterministicFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
