package io.psmr.scheduler.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting on a condition with a timeout, instead of sleeping and hoping. */
public final class Conditions {

    private Conditions() {
    }

    /** Polls {@code condition} until it holds; fails with {@code what} after {@code timeout}. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
