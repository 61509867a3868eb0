package io.psmr.simulation.progress;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * How far a long command has got, shown the way its output stream can take it: a redrawn progress
 * bar on a terminal; on a redirected stream ({@code psmr bench e2e > file}) a plain line at most every
 * {@link #LINE_INTERVAL_NANOS} and one at the end, with no carriage returns or ANSI codes that would
 * litter a log; nothing at all when quiet. The one place the CLI commands build a progress bar.
 *
 * <p>Concurrency: {@link #step()}, {@link #stepTo(long)} and {@link #close()} may be called from any
 * thread; they are synchronized and never block on more than a write to the stream.
 */
public final class Progress implements AutoCloseable {

    /** The least time between two plain lines on a redirected stream. */
    public static final long LINE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int BAR_REFRESH_MS = 200;

    private final String task;
    private final long total;
    private final String unit;
    private final boolean quiet;
    private final ProgressBar bar; // null unless drawing on a terminal
    private final PrintStream out;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private long lastLineNanos;
    private long done;
    private boolean closed;

    private Progress(String task, long total, String unit, boolean quiet, boolean terminal, PrintStream out,
                     LongSupplier nanoClock) {
        if (total < 0) {
            throw new IllegalArgumentException("progress total must be >= 0, got " + total);
        }
        this.task = task;
        this.total = total;
        this.unit = unit;
        this.quiet = quiet;
        this.out = out;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.lastLineNanos = startNanos;
        this.bar = quiet || !terminal ? null : new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
                .setUnit(" " + unit, 1).setUpdateIntervalMillis(BAR_REFRESH_MS)
                .setConsumer(new ConsoleProgressBarConsumer(out)).build();
    }

    /**
     * Progress on {@code System.err}: a bar when the JVM has a console ({@code System.console() != null},
     * which on JDK 17 means stdin and stdout are both a terminal), plain lines otherwise.
     *
     * @param task  what is running, e.g. {@code "bench e2e"}
     * @param total steps in the whole task
     * @param unit  what a step is, e.g. {@code "runs"}
     * @param quiet show nothing
     */
    public static Progress onStderr(String task, long total, String unit, boolean quiet) {
        return create(task, total, unit, quiet, System.console() != null, System.err, System::nanoTime);
    }

    /**
     * Progress on {@code out}, with the terminal decision and the clock given: the testable form of
     * {@link #onStderr}.
     *
     * @param terminal  whether {@code out} is a terminal that can redraw a bar
     * @param nanoClock a monotonic clock in nanoseconds, read at creation and at every step
     */
    public static Progress create(String task, long total, String unit, boolean quiet, boolean terminal,
                                  PrintStream out, LongSupplier nanoClock) {
        return new Progress(task, total, unit, quiet, terminal, out, nanoClock);
    }

    /** One more step done. */
    public synchronized void step() {
        stepTo(done + 1);
    }

    /** {@code n} steps done in all. */
    public synchronized void stepTo(long n) {
        done = n;
        if (bar != null) {
            bar.stepTo(n);
        } else if (!quiet) {
            long now = nanoClock.getAsLong();
            if (now - lastLineNanos >= LINE_INTERVAL_NANOS) {
                lastLineNanos = now;
                line(now);
            }
        }
    }

    /** Ends the display: the bar's last frame, or the last plain line. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (bar != null) {
            bar.close();
        } else if (!quiet) {
            line(nanoClock.getAsLong());
        }
    }

    private void line(long now) {
        out.println(task + " progress: " + done + "/" + total + " " + unit + ", "
                + elapsed(now - startNanos) + " elapsed");
        out.flush();
    }

    /** {@code 42s}, {@code 1m05s}, {@code 2h03m07s}. */
    static String elapsed(long nanos) {
        long s = TimeUnit.NANOSECONDS.toSeconds(Math.max(0, nanos));
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm%02ds", s / 3600, s / 60 % 60, s % 60);
    }
}
