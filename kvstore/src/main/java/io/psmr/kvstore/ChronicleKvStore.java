package io.psmr.kvstore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapAbsentEntry;
import net.openhft.chronicle.map.MapEntry;

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
 * <p><b>Allocation.</b> Chronicle Map's own {@code byte[]} handling wraps every key and value in a
 * new reference-counted {@code BytesStore} (about 190 bytes each), and its {@code Map} methods copy
 * the previous value out to return it. This store's map reads keys and values through
 * {@link ReusingByteArrayDataAccess}, which copies them into a store it keeps per query context
 * (so per thread), and its writes go through a query context that measures the previous value in
 * place ({@code entry.value().size()}). So {@link #replace}, {@link #put}, {@link #remove},
 * {@link #putIfAbsent} and the {@code ...ReturningPreviousSize} forms allocate nothing once warm, and
 * {@link #get} allocates only the array it returns. {@link #openMapApi} opens a map with Chronicle's
 * defaults behind the plain {@code Map} methods, as the benchmark's reference. (A file written by an
 * older psmr keeps the data access recorded in its header, and so its allocation, when reopened.)
 *
 * <p><b>Threads.</b> As {@link KvStore}: any number of threads; Chronicle Map's segment locks make
 * each call atomic for its key, and each thread has its own query context.
 *
 * <p>Needs the JVM flags of the root pom's {@code psmr.jvm.flags} on JDK 17, and a full JDK.
 */
public final class ChronicleKvStore implements KvStore {

    private final ChronicleMap<byte[], byte[]> map;
    private final Path path;

    /** Opens the store described by {@code config}. */
    public ChronicleKvStore(StoreConfig config) {
        this.path = config.path();
        this.map = openMap(config, true);
    }

    /**
     * Opens the map described by {@code config} (its sizes and path; the backend is not read) behind
     * Chronicle Map's plain {@code java.util.Map} methods ({@code get}, {@code put}, {@code replace},
     * {@code remove}, and the {@code ...AndGetPrevious} forms that copy the previous value), as
     * {@link ChronicleKvStore} did before it used query contexts. It exists as the benchmark's
     * "before" reference (it allocates the key and value wrappers and the previous value on every
     * call); replicas use {@link StoreConfig#open()}. Its contents, results and digest equal those of
     * a {@link ChronicleKvStore} given the same calls.
     */
    public static KvStore openMapApi(StoreConfig config) {
        return new MapApiStore(openMap(config, false), config.path());
    }

    private static ChronicleMap<byte[], byte[]> openMap(StoreConfig config, boolean reusingDataAccess) {
        ChronicleMapBuilder<byte[], byte[]> b = ChronicleMap.of(byte[].class, byte[].class)
                .name("psmr-kvstore")
                .entries(config.entries())
                .averageKeySize(config.averageKeyBytes())
                .averageValueSize(config.averageValueBytes())
                .maxBloatFactor(StoreConfig.MAX_BLOAT_FACTOR)
                // Chronicle's own exit hook would close the map under a worker still executing a batch while the
                // node's shutdown hook stops the replica in order (scheduler, then store), a FAIL-STOP at every stop.
                .skipCloseOnExitHook(true);
        if (reusingDataAccess) {
            b.keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ReusingByteArrayDataAccess())
                    .valueReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ReusingByteArrayDataAccess());
        }
        Path path = config.path();
        try {
            return path == null ? b.create() : b.createPersistedTo(path.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the Chronicle Map file " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        return map.get(key); // Chronicle's lock-light read path; the key is read without allocating
    }

    @Override
    public boolean putIfAbsent(byte[] key, byte[] value) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key)) {
            c.updateLock().lock();
            MapAbsentEntry<byte[], byte[]> absent = c.absentEntry();
            if (absent == null) {
                return false; // present: nothing copied (Map.putIfAbsent would copy the current value)
            }
            c.insert(absent, c.wrapValueAsData(value));
            return true;
        }
    }

    @Override
    public boolean replace(byte[] key, byte[] value) {
        return replaceReturningPreviousSize(key, value) >= 0;
    }

    @Override
    public void put(byte[] key, byte[] value) {
        putReturningPreviousSize(key, value);
    }

    @Override
    public boolean remove(byte[] key) {
        return removeReturningPreviousSize(key) >= 0;
    }

    @Override
    public int putReturningPreviousSize(byte[] key, byte[] value) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key)) {
            c.updateLock().lock(); // as Map.put: read the previous value and write under one lock
            MapEntry<byte[], byte[]> e = c.entry();
            if (e != null) {
                int previous = Math.toIntExact(e.value().size());
                c.replaceValue(e, c.wrapValueAsData(value));
                return previous;
            }
            c.insert(c.absentEntry(), c.wrapValueAsData(value));
            return -1;
        }
    }

    @Override
    public int replaceReturningPreviousSize(byte[] key, byte[] value) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key)) {
            c.updateLock().lock();
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return -1;
            }
            int previous = Math.toIntExact(e.value().size());
            c.replaceValue(e, c.wrapValueAsData(value));
            return previous;
        }
    }

    @Override
    public int removeReturningPreviousSize(byte[] key) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key)) {
            c.updateLock().lock();
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return -1;
            }
            int previous = Math.toIntExact(e.value().size());
            c.remove(e);
            return previous;
        }
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

    /** {@link #openMapApi}: the plain {@code Map} methods, unchanged, for the benchmark's A/B. */
    private static final class MapApiStore implements KvStore {
        private final ChronicleMap<byte[], byte[]> map;
        private final Path path;

        MapApiStore(ChronicleMap<byte[], byte[]> map, Path path) {
            this.map = map;
            this.path = path;
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
            return "ChronicleKvStore.openMapApi[" + (path == null ? "in memory" : path) + ", " + map.longSize() + " entries]";
        }
    }
}
