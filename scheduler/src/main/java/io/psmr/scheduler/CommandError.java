package io.psmr.scheduler;

/**
 * Why a command produced no result.
 *
 * @param kind    what went wrong
 * @param message a human-readable reason, naming the problem
 */
public record CommandError(Kind kind, String message) {

    /** What went wrong. */
    public enum Kind {
        /** The service threw while executing the command; the state is whatever the service left. */
        FAILED,
        /** The batch was refused before anything ran, for example because its summary misses a key. */
        REJECTED
    }
}
