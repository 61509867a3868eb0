package io.psmr.bench.scheduler;

import io.psmr.scheduler.Command;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The summary stage of a {@code --summaries timed} cell: a thread that builds each batch's summary, in
 * cycle order, ahead of the delivery thread, and hands it over through a queue of at most
 * {@code capacity} summaries; a full queue blocks the stage. A replica builds or verifies summaries
 * the same way, on its decode path, so that its delivery thread only schedules.
 *
 * <p><b>Threads.</b> The constructor starts the stage's thread; {@link #next} and {@link #close} are
 * called by the delivery thread. {@link #next} blocks until the next summary is built, and fails
 * with the stage's failure if the builder threw.
 */
final class SummaryStage<C extends Command> implements AutoCloseable {

    private final ArrayBlockingQueue<ConflictSummary> ready;
    private final Thread thread;
    private volatile Throwable failure;

    /** Starts building the summaries of {@code batches}, cyclically, under {@code detection}. */
    SummaryStage(List<List<C>> batches, ConflictDetection detection, int capacity) {
        this.ready = new ArrayBlockingQueue<>(capacity);
        this.thread = new Thread(() -> build(batches, detection), "psmr-bench-summaries");
        thread.setDaemon(true);
        thread.start();
    }

    private void build(List<List<C>> batches, ConflictDetection detection) {
        SummaryBuilder builder = new SummaryBuilder(detection);
        try {
            for (int idx = 0; ; idx = idx + 1 == batches.size() ? 0 : idx + 1) {
                List<C> commands = batches.get(idx);
                for (int i = 0, n = commands.size(); i < n; i++) {
                    builder.add(commands.get(i));
                }
                ready.put(builder.build());
            }
        } catch (InterruptedException e) {
            // closed
        } catch (RuntimeException | Error e) {
            failure = e;
        }
    }

    /** The summary of the next batch of the cycle. */
    ConflictSummary next() throws InterruptedException {
        while (true) {
            ConflictSummary s = ready.poll(10, TimeUnit.MILLISECONDS);
            if (s != null) {
                return s;
            }
            Throwable f = failure;
            if (f != null) {
                throw new IllegalStateException("the summary stage failed: " + f, f);
            }
        }
    }

    /** Stops the stage's thread and waits for it. */
    @Override
    public void close() throws InterruptedException {
        thread.interrupt();
        thread.join();
    }
}
