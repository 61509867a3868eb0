package io.psmr.ordering.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.scheduler.GraphStatistics;
import io.psmr.scheduler.SchedulerMetrics;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Binds a scheduler's counters to Micrometer meters named {@code psmr.scheduler.*} (see docs/metrics.md).
 * The scheduler itself knows nothing of Micrometer: every meter reads a {@link SchedulerMetrics}
 * snapshot when it is scraped, so executing a batch costs no meter update beyond the scheduler's
 * own counters.
 *
 * <p>The snapshot source may return null while there is no scheduler (a replica catching up by
 * state transfer): gauges then read NaN and counters keep their last value. A replica that starts a
 * new scheduler restarts its counters from 0, which Prometheus' {@code rate()} treats as a reset.
 *
 * <p><b>Threads.</b> {@link #bind} from any thread, once per registry; meters are read on the
 * scraper's thread, which calls the source (it takes the graph's monitor briefly).
 */
public final class SchedulerMeters {

    private final Supplier<SchedulerMetrics> source;
    private volatile SchedulerMetrics last;

    private SchedulerMeters(Supplier<SchedulerMetrics> source) {
        this.source = source;
    }

    /**
     * Registers the scheduler meters in {@code registry}, reading {@code source} on each scrape.
     *
     * @param source the current scheduler's snapshot, or null while there is none
     */
    public static void bind(MeterRegistry registry, Supplier<SchedulerMetrics> source) {
        SchedulerMeters m = new SchedulerMeters(Objects.requireNonNull(source, "source"));
        m.gauge(registry, "psmr.scheduler.batches.pending", null, "batches in the dependency graph now",
                s -> s.graph().size());
        m.gauge(registry, "psmr.scheduler.batches.ready", null,
                "batches in the graph that wait for no predecessor and no worker yet", s -> s.graph().ready());
        m.gauge(registry, "psmr.scheduler.batches.waiting", null,
                "batches in the graph that run or wait behind a conflicting predecessor (pending - ready)",
                s -> s.graph().size() - s.graph().ready());
        m.gauge(registry, "psmr.scheduler.batches.pending.max", null, "most batches the graph has held",
                s -> s.graph().maxSize());
        m.gauge(registry, "psmr.scheduler.workers", null, "worker threads", SchedulerMetrics::workers);
        m.gauge(registry, "psmr.scheduler.worker.busy.fraction", null,
                "fraction of worker time spent executing since start", SchedulerMetrics::workerUtilisation);
        m.gauge(registry, "psmr.scheduler.conflict.ratio", null,
                "conflict tests that found a pending predecessor, over all tests, since start", s -> {
                    GraphStatistics g = s.graph();
                    return g.conflictChecks() == 0 ? 0 : (double) g.conflictsFound() / g.conflictChecks();
                });
        m.counter(registry, "psmr.scheduler.batches.delivered", null, "batches delivered to the scheduler",
                SchedulerMetrics::batchesDelivered);
        m.counter(registry, "psmr.scheduler.batches.executed", null, "batches whose commands all ran",
                SchedulerMetrics::batchesExecuted);
        m.counter(registry, "psmr.scheduler.batches.rejected", null,
                "batches refused because their summary missed a key", SchedulerMetrics::batchesRejected);
        m.counter(registry, "psmr.scheduler.commands.executed", null, "commands run",
                SchedulerMetrics::commandsExecuted);
        m.counter(registry, "psmr.scheduler.commands.failed", null, "commands whose service call threw",
                SchedulerMetrics::commandsFailed);
        m.counter(registry, "psmr.scheduler.conflict.checks", null,
                "conflict tests on insert (summary comparisons or index probes)", s -> s.graph().conflictChecks());
        m.counter(registry, "psmr.scheduler.conflicts", null,
                "conflicts found on insert (true and false positives together: a replica cannot tell them apart)",
                s -> s.graph().conflictsFound());
        m.counter(registry, "psmr.scheduler.graph.edges", null, "dependency edges added",
                s -> s.graph().edgesAdded());
        m.counter(registry, "psmr.scheduler.worker.busy", "seconds", "worker time spent executing, summed over workers",
                s -> s.workerBusyNanos() / 1e9);
        m.counter(registry, "psmr.scheduler.worker.idle", "seconds", "worker time spent waiting, summed over workers",
                s -> s.workerIdleNanos() / 1e9);
        FunctionTimer.builder("psmr.scheduler.batch.execution", m,
                        x -> x.read() == null ? 0 : x.read().batchesExecuted(),
                        x -> x.read() == null ? 0 : x.read().workerBusyNanos(), TimeUnit.NANOSECONDS)
                .description("batches executed and the worker time they took (mean = sum / count)")
                .register(registry);
    }

    /** The current snapshot, or the last one seen if there is no scheduler now (null before any). */
    private SchedulerMetrics read() {
        SchedulerMetrics s = source.get();
        if (s != null) {
            last = s;
            return s;
        }
        return last;
    }

    private void gauge(MeterRegistry registry, String name, String unit, String description,
                       ToDoubleFunction<SchedulerMetrics> f) {
        Gauge.builder(name, this, x -> {
                    SchedulerMetrics s = x.source.get();
                    return s == null ? Double.NaN : f.applyAsDouble(s);
                })
                .baseUnit(unit).description(description).strongReference(true).register(registry);
    }

    private void counter(MeterRegistry registry, String name, String unit, String description,
                         ToDoubleFunction<SchedulerMetrics> f) {
        FunctionCounter.builder(name, this, x -> {
                    SchedulerMetrics s = x.read();
                    return s == null ? 0 : f.applyAsDouble(s);
                })
                .baseUnit(unit).description(description).register(registry);
    }
}
