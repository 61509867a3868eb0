package io.psmr.ordering.agent;

import java.util.concurrent.locks.LockSupport;

/**
 * How a runner thread waits when its agents found no work: spin, then yield, then park for a doubling time up to a
 * bound, and back to spinning as soon as any work is done. One instance per thread (it is not thread-safe).
 */
public final class IdleStrategy {

    /** The first park of {@link #backoff(long)} on fewer than 8 cores. */
    public static final long FEW_CORES_FIRST_PARK_NANOS = 250_000;

    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;

    private int spins;
    private int yields;
    private long parkNanos;

    /**
     * @param maxSpins     idle cycles spent busy-spinning before yielding; at least 0
     * @param maxYields    idle cycles spent yielding before parking; at least 0
     * @param minParkNanos the first park; at least 1
     * @param maxParkNanos the longest park (the bound on the added latency of an idle thread); at least minParkNanos
     */
    public IdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0) {
            throw new IllegalArgumentException("maxSpins and maxYields must not be negative, got " + maxSpins + " and "
                    + maxYields);
        }
        if (minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("need 1 <= minParkNanos <= maxParkNanos, got " + minParkNanos + " and "
                    + maxParkNanos);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        reset();
    }

    /**
     * The default: on 8 or more cores 100 spins and 50 yields, on fewer 2 yields only, then parks from 1 µs doubling
     * up to 1 ms. Spinning agents of 4 in-JVM replicas starved each other on 2 cores: {@code load --ordering pbft}
     * gave 6,092 ops/s (p99 176 ms) spinning and 9,932 ops/s (p99 76 ms) parking at once, one 8 s run each.
     */
    public static IdleStrategy backoff() {
        return backoff(1_000_000);
    }

    /**
     * As {@link #backoff()}, parking up to {@code maxParkNanos}: for a runner whose agents list their
     * {@link Agent#inboxes() inboxes}, so that a message wakes the thread before the park ends. Each wake-up of an
     * idle thread costs tens of microseconds of CPU on a virtual machine; parking up to a 10 ms tick instead of 1 ms
     * keeps an idle replica process nearly off the CPU. On fewer than 8 cores the first park is
     * {@value #FEW_CORES_FIRST_PARK_NANOS} ns, not 1 µs: there the threads outnumber the cores, and a ramp of
     * parks from 1 µs is a string of futex calls and context switches between two messages. On 2 cores, first parks
     * of 64 to 250 µs let a 4-replica PBFT process cluster order 3,299-4,397 ops/s at 16 clients (340-471 µs of CPU
     * per operation) against 2,440-4,139 (390-665 µs) from 1 µs, and its in-process cluster 36.8-37.2k against
     * 33.6-35.0k.
     *
     * @param maxParkNanos the longest park, at least 1 µs
     */
    public static IdleStrategy backoff(long maxParkNanos) {
        boolean manyCores = Runtime.getRuntime().availableProcessors() >= 8;
        long longest = Math.max(1_000, maxParkNanos);
        long first = manyCores ? 1_000 : Math.min(FEW_CORES_FIRST_PARK_NANOS, longest);
        return new IdleStrategy(manyCores ? 100 : 0, manyCores ? 50 : 2, first, longest);
    }

    /** Whether the next {@link #idle idle(0)} parks (rather than spins or yields). */
    public boolean parksNext() {
        return spins >= maxSpins && yields >= maxYields;
    }

    /** After a duty cycle: resets on work, otherwise waits one step longer than last time. */
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
            return;
        }
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos * 2, maxParkNanos);
        }
    }

    /** Back to spinning. */
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }

    /** The longest park, in nanoseconds. */
    public long maxParkNanos() {
        return maxParkNanos;
    }
}
