package io.psmr.kvstore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * The default {@link KvStore}: an off-heap Chronicle Map of {@code byte[]} to {@code byte[]}, in
 * memory, or persisted to a file when {@link StoreConfig#path()} is set (an existing file is
 * reopened with its contents).
 *
 * <p><b>Capacity.</b> Chronicle Map is sized up front by {@link StoreConfig#entries()} and the
 * average key and value sizes; it may grow to {@link StoreConfig#MAX_BLOAT_FACTOR} times that
 * before a put fails. That is a provisioning bound, not a replicated one: the replicated bound is
 * {@link StoreCapacity}, enforced in delivery order, and {@link StoreConfig#forCapacity} sizes the
 * map above it. Should the map fail all the same, the exception fail-stops the replica.
 *
 * <p>Needs the JVM flags of the root pom's {@code psmr.jvm.flags} on JDK 17, and a full JDK.
 */
public final class ChronicleKvStore implements KvStore {

    private final ChronicleMap<byte[], byte[]> map;
    private final Path path;

    /** Opens the store described by {@code config}. */
    public ChronicleKvStore(StoreConfig config) {
        ChronicleMapBuilder<byte[], byte[]> b = ChronicleMap.of(byte[].class, byte[].class)
                .name("psmr-kvstore")
                .entries(config.entries())
                .averageKeySize(config.averageKeyBytes())
                .averageValueSize(config.averageValueBytes())
                .maxBloatFactor(StoreConfig.MAX_BLOAT_FACTOR)
                // Chronicle's own exit hook would close the map under a worker still executing a batch while the
                // node's shutdown hook stops the replica in order (scheduler, then store), a FAIL-STOP at every stop.
                .skipCloseOnExitHook(true);
        this.path = config.path();
        try {
            this.map = path == null ? b.create() : b.createPersistedTo(path.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the Chronicle Map file " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        return map.get(key);
    }

    @Override
    public boolean putIfAbsent(byte[] key, byte[] value) {
        return map.putIfAbsent(key, value) == null;
    }

    @Override
    public boolean replace(byte[] key, byte[] value) {
        return map.replace(key, value) != null;
    }

    @Override
    public void put(byte[] key, byte[] value) {
        map.put(key, value);
    }

    @Override
    public boolean remove(byte[] key) {
        return map.remove(key) != null;
    }

    @Override
    public byte[] putAndGetPrevious(byte[] key, byte[] value) {
        return map.put(key, value);
    }

    @Override
    public byte[] replaceAndGetPrevious(byte[] key, byte[] value) {
        return map.replace(key, value);
    }

    @Override
    public byte[] removeAndGetPrevious(byte[] key) {
        return map.remove(key);
    }

    @Override
    public long size() {
        return map.longSize();
    }

    @Override
    public void forEach(BiConsumer<byte[], byte[]> action) {
        map.forEach(action);
    }

    @Override
    public void close() {
        if (map.isOpen()) {
            map.close();
        }
    }

    @Override
    public String toString() {
        return "ChronicleKvStore[" + (path == null ? "in memory" : path) + ", " + map.longSize() + " entries]";
    }
}
