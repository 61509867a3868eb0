package io.psmr.bench.chaos;

import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.HistorySink;
import io.psmr.bench.load.LoadOptions;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.links.LinkTable;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The campaign's clients that go with the minority side of each partition: a closed-loop load of their own, through a
 * proxy of their own, dialing the nodes through the links of {@link LinkTable#CLIENTS_MINORITY}
 * ({@link ClusterLoad#runClients}), on a thread of its own. Between partitions they are clients like the others.
 * {@link #start}, {@link #await} and {@link #stop} are called from the campaign's thread.
 */
final class MinorityLoad {

    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    MinorityLoad(ClusterLauncher launcher, LoadOptions options, HistorySink history) {
        this.thread = new Thread(() -> {
            try {
                ClusterLoad.runClients(launcher.directory(), options, LinkTable.CLIENTS_MINORITY, history);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure.compareAndSet(null, e);
            } catch (Exception | Error e) {
                failure.compareAndSet(null, e);
            }
        }, "psmr-chaos-minority-load");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /**
     * Waits until the clients have finished: their duration is over and every outstanding operation was answered.
     *
     * @throws IllegalStateException if they are not done within {@code timeout} (a client that cannot make progress
     *                               after the heal), or their load failed
     */
    void await(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            throw new IllegalStateException("the " + LinkTable.CLIENTS_MINORITY + " clients did not finish within "
                    + timeout.toSeconds() + " s of the heal: an operation of theirs stays unanswered");
        }
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("the " + LinkTable.CLIENTS_MINORITY + " clients failed: "
                    + (t.getMessage() == null ? t.toString() : t.getMessage()), t);
        }
    }

    /** Interrupts the clients if they still run (the campaign failed early), and waits a little for them. */
    void stop() throws InterruptedException {
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
    }
}
