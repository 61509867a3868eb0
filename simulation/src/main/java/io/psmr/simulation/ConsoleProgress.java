package io.psmr.simulation;

import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * A progress bar on a console stream, shown only once a run has lasted {@link #DELAY_MS}: runs
 * shorter than that finish before a bar would be worth reading, and leave the stream clean.
 */
public final class ConsoleProgress implements ProgressDisplay {

    /** How long a run goes before the bar appears. */
    public static final long DELAY_MS = 2000;
    private static final long REFRESH_MS = 200;

    private final PrintStream stream;

    /** A display on {@code stream}, normally {@code System.err}. */
    public ConsoleProgress(PrintStream stream) {
        this.stream = stream;
    }

    @Override
    public void follow(AtomicLong done, long total, CompletableFuture<?> completion) {
        if (finishedWithin(completion, DELAY_MS)) {
            return;
        }
        try (ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("simulate")
                .setInitialMax(total)
                .setUnit(" it", 1)
                .setUpdateIntervalMillis((int) REFRESH_MS)
                .setConsumer(new ConsoleProgressBarConsumer(stream))
                .build()) {
            // Waiting on the completion with a timeout, rather than sleeping, returns the moment
            // the run ends.
            while (!finishedWithin(completion, REFRESH_MS)) {
                bar.stepTo(done.get());
            }
            bar.stepTo(done.get());
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
