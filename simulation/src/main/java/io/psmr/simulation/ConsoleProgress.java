package io.psmr.simulation;

import io.psmr.simulation.progress.Progress;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Progress of a simulation on a console stream, shown only once a run has lasted {@link #DELAY_MS}:
 * runs shorter than that finish before progress would be worth reading, and leave the stream clean.
 * A bar on a terminal, plain lines when redirected (see {@link Progress}).
 */
public final class ConsoleProgress implements ProgressDisplay {

    /** How long a run goes before progress appears. */
    public static final long DELAY_MS = 2000;
    private static final long REFRESH_MS = 200;

    private final PrintStream stream;
    private final boolean terminal;
    private final LongSupplier nanoClock;

    /** A display on {@code stream}, normally {@code System.err}; a bar only if the JVM has a console. */
    public ConsoleProgress(PrintStream stream) {
        this(stream, System.console() != null, System::nanoTime);
    }

    /** A display on {@code stream} with the terminal decision and clock given (for tests). */
    public ConsoleProgress(PrintStream stream, boolean terminal, LongSupplier nanoClock) {
        this.stream = stream;
        this.terminal = terminal;
        this.nanoClock = nanoClock;
    }

    @Override
    public void follow(AtomicLong done, long total, CompletableFuture<?> completion) {
        if (finishedWithin(completion, DELAY_MS)) {
            return;
        }
        try (Progress progress = Progress.create("simulate", total, "it", false, terminal, stream, nanoClock)) {
            // Waiting on the completion with a timeout, rather than sleeping, returns the moment
            // the run ends.
            while (!finishedWithin(completion, REFRESH_MS)) {
                progress.stepTo(done.get());
            }
            progress.stepTo(done.get());
        }
    }

    private static boolean finishedWithin(CompletableFuture<?> completion, long millis) {
        try {
            completion.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true; // the caller reads the failure from the futures
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
