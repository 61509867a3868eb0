package io.psmr.kvstore;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Which {@link KvStore} a replica opens, and how it is sized.
 *
 * @param backend           {@link Backend#CHRONICLE} (default) or {@link Backend#HEAP}
 * @param entries           expected number of entries (Chronicle Map sizes itself for it; default 100,000)
 * @param averageKeyBytes   expected average key size (default 16)
 * @param averageValueBytes expected average value size (default 128)
 * @param path              Chronicle Map only: the file to persist to, or null to stay in memory (default)
 */
public record StoreConfig(Backend backend, long entries, int averageKeyBytes, int averageValueBytes, Path path) {

    /** How far Chronicle Map may grow beyond {@link #entries()} before puts fail. */
    public static final double MAX_BLOAT_FACTOR = 4.0;

    /** The storage backends. */
    public enum Backend {
        /** {@link ChronicleKvStore}: off heap, optionally persisted. */
        CHRONICLE,
        /** {@link HeapKvStore}: a concurrent map on the heap, for comparison. */
        HEAP
    }

    /** Validates the settings. */
    public StoreConfig {
        Objects.requireNonNull(backend, "backend");
        if (entries < 1) {
            throw new IllegalArgumentException("entries must be at least 1, got " + entries);
        }
        if (averageKeyBytes < 1 || averageValueBytes < 1) {
            throw new IllegalArgumentException("average key and value sizes must be at least 1 byte, got "
                    + averageKeyBytes + " and " + averageValueBytes);
        }
        if (path != null && backend != Backend.CHRONICLE) {
            throw new IllegalArgumentException("only the CHRONICLE backend can be persisted to a file; got " + backend);
        }
    }

    /** An in-memory Chronicle Map with the default sizes. */
    public static StoreConfig defaults() {
        return new StoreConfig(Backend.CHRONICLE, 100_000, 16, 128, null);
    }

    /** The heap backend. */
    public static StoreConfig heap() {
        return new StoreConfig(Backend.HEAP, 100_000, 16, 128, null);
    }

    /** The same settings sized for another entry count and average sizes. */
    public StoreConfig sized(long entries, int averageKeyBytes, int averageValueBytes) {
        return new StoreConfig(backend, entries, averageKeyBytes, averageValueBytes, path);
    }

    /** The same settings, persisted to {@code file} (Chronicle Map only). */
    public StoreConfig persistedTo(Path file) {
        return new StoreConfig(backend, entries, averageKeyBytes, averageValueBytes, Objects.requireNonNull(file, "file"));
    }

    /**
     * The same backend and path, sized so that a store holding {@code capacity} never fills the
     * backend first: Chronicle Map is sized for a quarter more entries than the capacity allows, with
     * an average entry at least as large as the capacity's bytes per entry, and may still bloat
     * {@link #MAX_BLOAT_FACTOR} times beyond that.
     */
    public StoreConfig forCapacity(StoreCapacity capacity, int averageKeyBytes) {
        long entries = Math.max(1_000, capacity.maxEntries() + capacity.maxEntries() / 4 + 16);
        long perEntry = Math.max(1, capacity.maxBytes() / capacity.maxEntries());
        int key = Math.max(1, averageKeyBytes);
        int value = (int) Math.max(1, Math.min(1 << 20, perEntry - key));
        return new StoreConfig(backend, entries, key, Math.max(value, 8), path);
    }

    /** Opens a new store with these settings. */
    public KvStore open() {
        return switch (backend) {
            case CHRONICLE -> new ChronicleKvStore(this);
            case HEAP -> new HeapKvStore();
        };
    }
}
