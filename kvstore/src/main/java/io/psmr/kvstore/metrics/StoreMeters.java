package io.psmr.kvstore.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.kvstore.StoreCapacity;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * Binds a replica's store to Micrometer gauges named {@code psmr.store.*} (see docs/metrics.md): entries
 * and key-plus-value bytes held, against the replicated {@link StoreCapacity}.
 *
 * <p><b>Threads.</b> Bind from any thread; the suppliers are called on the scraper's thread (reading
 * the entry count of a Chronicle Map walks its segments: cheap at scrape rate, not per command).
 */
public final class StoreMeters {

    private StoreMeters() {
    }

    /**
     * Registers the store gauges.
     *
     * @param entries  entries held now (NaN while there is no store, as during a catch-up)
     * @param bytes    key-plus-value bytes held now (NaN likewise)
     * @param capacity the replicated capacity
     */
    public static void bind(MeterRegistry registry, DoubleSupplier entries, DoubleSupplier bytes, StoreCapacity capacity) {
        Objects.requireNonNull(capacity, "capacity");
        Gauge.builder("psmr.store.entries", entries, DoubleSupplier::getAsDouble).description("entries the store holds").strongReference(true).register(registry);
        Gauge.builder("psmr.store.entries.capacity", capacity, StoreCapacity::maxEntries).description("most entries the store may hold (replicated capacity)")
                .strongReference(true).register(registry);
        Gauge.builder("psmr.store.used", bytes, DoubleSupplier::getAsDouble)
                .baseUnit("bytes").description("key plus value bytes the store holds").strongReference(true)
                .register(registry);
        Gauge.builder("psmr.store.capacity", capacity, StoreCapacity::maxBytes)
                .baseUnit("bytes").description("most key plus value bytes the store may hold (replicated capacity)")
                .strongReference(true).register(registry);
    }
}
