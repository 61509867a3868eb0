package io.psmr.ordering.ratis;

import io.psmr.scheduler.CommandError;

/**
 * The outcome of one command of a batch, as the scheduler reported it: a result, or an error
 * (the service threw, or the batch was rejected). Exactly one of the two is non-null, except that
 * a service may itself return null as a result.
 *
 * @param result the service's result, when {@code error} is null
 * @param error  why the command did not complete, or null
 * @param <R>    the result type
 */
public record Outcome<R>(R result, CommandError error) {

    /** Whether the command completed with a result. */
    public boolean ok() {
        return error == null;
    }
}
