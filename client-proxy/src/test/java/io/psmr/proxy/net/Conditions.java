package io.psmr.proxy.net;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting on conditions with a deadline, for tests of asynchronous network code. */
public final class Conditions {

    private Conditions() {
    }

    /** Polls {@code condition} every millisecond until it holds; fails with {@code what} after {@code seconds}. */
    public static void await(BooleanSupplier condition, long seconds, Supplier<String> what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + seconds + " s waiting for " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
