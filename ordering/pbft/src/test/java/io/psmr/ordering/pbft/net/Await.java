package io.psmr.ordering.pbft.net;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline, re-checking it every few milliseconds; fails naming what was awaited. */
final class Await {

    private Await() {
    }

    static void until(String what, long timeoutMillis, BooleanSupplier condition, Supplier<Object> state) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeoutMillis + " ms: " + what + "; now " + state.get());
            }
            LockSupport.parkNanos(5_000_000L);
        }
    }
}
