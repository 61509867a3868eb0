package io.psmr.proxy.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.proxy.ProxyStats;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Binds a client proxy's {@link ProxyStats} to Micrometer meters named {@code psmr.proxy.*} (see
 * docs/metrics.md). The proxy knows nothing of Micrometer: each meter reads a snapshot when scraped.
 *
 * <p>The source may return null while there is no proxy (before a load starts): gauges read NaN and
 * counters 0 (or their last value).
 *
 * <p><b>Threads.</b> Bind from any thread; meters are read on the scraper's thread, which calls the
 * source (the proxy takes its lock briefly to copy its counters).
 */
public final class ProxyMeters {

    private final Supplier<ProxyStats> source;
    private volatile ProxyStats last;

    private ProxyMeters(Supplier<ProxyStats> source) {
        this.source = source;
    }

    /** Registers the proxy meters in {@code registry}, reading {@code source} on each scrape. */
    public static void bind(MeterRegistry registry, Supplier<ProxyStats> source) {
        ProxyMeters m = new ProxyMeters(Objects.requireNonNull(source, "source"));
        // Gauges hold `m` strongly (registry -> gauge -> m), which keeps the weakly held counters' object alive.
        m.gauge(registry, "psmr.proxy.batches.outstanding", null, "batches proposed and not fully answered now",
                ProxyStats::outstanding);
        m.gauge(registry, "psmr.proxy.commands.queued", null, "commands waiting to be batched now",
                ProxyStats::queued);
        m.counter(registry, "psmr.proxy.batches.proposed", null, "new batches proposed (retries not counted)",
                ProxyStats::batches);
        m.counter(registry, "psmr.proxy.commands.proposed", null, "client commands in those batches",
                ProxyStats::commands);
        m.counter(registry, "psmr.proxy.batches.retried", null,
                "batches proposed again after a reply timeout or an overload", ProxyStats::retries);
        m.counter(registry, "psmr.proxy.batches.timed.out", null, "batches given up after the last retry",
                ProxyStats::timedOut);
        m.counter(registry, "psmr.proxy.replies", null, "replies received, from every replica", ProxyStats::replies);
        m.counter(registry, "psmr.proxy.commands.rejected", null, "submissions refused because the queue was full",
                ProxyStats::rejected);
        timer(registry, m);
    }

    private static void timer(MeterRegistry registry, ProxyMeters m) {
        FunctionTimer.builder("psmr.proxy.proposal", m, x -> x.read() == null ? 0 : x.read().finished(),
                        x -> x.read() == null ? 0 : x.read().proposalNanos(), TimeUnit.NANOSECONDS)
                .description("batches finished, and the time from proposal to their last answer (retries included)")
                .register(registry);
    }

    private ProxyStats read() {
        ProxyStats s = source.get();
        if (s != null) {
            last = s;
            return s;
        }
        return last;
    }

    private void gauge(MeterRegistry registry, String name, String unit, String description, ToDoubleFunction<ProxyStats> f) {
        Gauge.builder(name, this, x -> {
                    ProxyStats s = x.source.get();
                    return s == null ? Double.NaN : f.applyAsDouble(s);
                })
                .baseUnit(unit).description(description).strongReference(true).register(registry);
    }

    private void counter(MeterRegistry registry, String name, String unit, String description, ToDoubleFunction<ProxyStats> f) {
        FunctionCounter.builder(name, this, x -> {
                    ProxyStats s = x.read();
                    return s == null ? 0 : f.applyAsDouble(s);
                })
                .baseUnit(unit).description(description).register(registry);
    }
}
