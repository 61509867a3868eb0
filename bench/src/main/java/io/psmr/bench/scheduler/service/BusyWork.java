package io.psmr.bench.scheduler.service;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed amount of CPU work per command ({@code psmr bench --work-ns}): a spin loop of a
 * calibrated number of iterations, computing a value from the command's key. It stands in for a
 * service that does more than one map operation, so that the scheduler's overhead can be seen
 * against commands of a known cost.
 *
 * <p><b>Calibration.</b> Once per JVM, on first use with a non-zero amount, the loop is run until
 * compiled and then timed over a few short trials; the fastest trial gives iterations per
 * nanosecond (the fastest, because on a shared machine slower trials measure the neighbours).
 * Nothing reads the clock per command.
 *
 * <p><b>Not optimised away.</b> The loop is a chain of dependent multiply-adds seeded from the key,
 * and its result is compared with a constant on every call (a hit is counted), so the JIT must
 * compute it, as JMH's Blackhole does.
 *
 * <p>Thread-safe: {@link #run} may be called from any number of threads at once.
 */
public final class BusyWork {

    /** The most nanoseconds per command. */
    public static final long MAX_NANOS = 1_000_000;
    /** No work: {@link #run} returns at once. */
    public static final BusyWork NONE = new BusyWork(0, 0);

    private static final long SENTINEL = 0x5DEECE66DL;

    private final long nanos;
    private final long iterations;
    private final LongAdder hits = new LongAdder();

    private BusyWork(long nanos, long iterations) {
        this.nanos = nanos;
        this.iterations = iterations;
    }

    /**
     * Work of about {@code nanos} nanoseconds per call, calibrated on this machine.
     *
     * @throws IllegalArgumentException unless {@code 0 <= nanos <= }{@link #MAX_NANOS}
     */
    public static BusyWork of(long nanos) {
        if (nanos < 0 || nanos > MAX_NANOS) {
            throw new IllegalArgumentException("work must be from 0 to " + MAX_NANOS + " ns, got " + nanos);
        }
        if (nanos == 0) {
            return NONE;
        }
        return new BusyWork(nanos, Math.max(1, Math.round(nanos * iterationsPerNano())));
    }

    /** Loop iterations per nanosecond on this machine, measured on the first call and then fixed. */
    public static double iterationsPerNano() {
        return Calibration.ITERATIONS_PER_NANO;
    }

    /** The nanoseconds asked for. */
    public long nanos() {
        return nanos;
    }

    /** Loop iterations per call. */
    public long iterations() {
        return iterations;
    }

    /** Calls whose result happened to equal the sentinel: reading it keeps the work observable. */
    public long hits() {
        return hits.sum();
    }

    /** Does the work for a command whose key is summarised by {@code seed}. */
    public void run(long seed) {
        if (iterations == 0) {
            return;
        }
        if (spin(seed, iterations) == SENTINEL) {
            hits.increment();
        }
    }

    /** One line for the output header, e.g. {@code 100 ns of busy work per command (134 iterations; 1.34 iterations/ns)}. */
    public String describe() {
        if (iterations == 0) {
            return "no extra work per command";
        }
        return String.format(Locale.ROOT, "%d ns of busy work per command (%d iterations; calibrated %.3f iterations/ns)",
                nanos, iterations, iterationsPerNano());
    }

    /** {@code n} dependent steps of a 64-bit linear congruential generator from {@code x}. */
    static long spin(long x, long n) {
        for (long i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    /** Measured once, when first needed (the holder idiom: the JVM runs it once, thread-safely). */
    private static final class Calibration {
        static final double ITERATIONS_PER_NANO = measure();

        private static double measure() {
            long sink = 0;
            // Until compiled: C2 compiles a hot loop after some 10^4 back-edges; this is well beyond.
            for (int i = 0; i < 200; i++) {
                sink += spin(i, 100_000);
            }
            double best = 0;
            for (int trial = 0; trial < 7; trial++) {
                long n = 2_000_000;
                long t0 = System.nanoTime();
                sink += spin(trial, n);
                long t = System.nanoTime() - t0;
                best = Math.max(best, (double) n / Math.max(1, t));
            }
            if (sink == SENTINEL) {
                System.err.print(""); // keeps the calibration's loops observably used
            }
            return best;
        }
    }
}
