package io.psmr.scheduler;

/**
 * A checked exception that a {@link Service} threw without declaring it deterministic (it is not a
 * {@link DeterministicFailure}); it fail-stops the scheduler, and {@link Scheduler#failure()}
 * reports it. Unchecked exceptions and errors fail-stop the scheduler as they are.
 */
public final class UndeclaredServiceFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UndeclaredServiceFailure(long instance, int index, Exception cause) {
        super("command " + index + " of batch " + instance + " threw " + cause
                + ", which the service did not declare deterministic", cause);
    }
}
