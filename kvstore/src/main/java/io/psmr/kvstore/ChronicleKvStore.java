package io.psmr.kvstore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
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
 * <p><b>Allocation.</b> Calls go through Chronicle Map's query contexts, not its {@code Map}
 * methods. Those methods wrap every {@code byte[]} key and value in a new reference-counted
 * {@code BytesStore} (about 190 bytes each) and copy the previous value out to return it. Here each
 * calling thread copies the key and value into its own reused heap {@code BytesStore} (grown to the
 * largest key or value it has written, so at most {@link KvLimits}' sizes per thread), the
 * context's reusable key and value views point at them, and the previous value is measured in place
 * ({@code entry.value().size()}). So {@link #replace}, {@link #put}, {@link #remove},
 * {@link #putIfAbsent} and the {@code ...ReturningPreviousSize} forms allocate nothing once warm, and
 * {@link #get} allocates only the array it returns. {@link #openMapApi} opens the same map behind the
 * plain {@code Map} methods, as the benchmark's reference.
 *
 * <p><b>Threads.</b> As {@link KvStore}: any number of threads; Chronicle Map's segment locks make
 * each call atomic for its key, and each thread has its own scratch stores and query context.
 *
 * <p>Needs the JVM flags of the root pom's {@code psmr.jvm.flags} on JDK 17, and a full JDK.
 */
public final class ChronicleKvStore implements KvStore {

    private final ChronicleMap<byte[], byte[]> map;
    private final Path path;
    /** Per thread, per store: the key and value scratch stores (never shared between threads). */
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

    /** Opens the store described by {@code config}. */
    public ChronicleKvStore(StoreConfig config) {
        this.path = config.path();
        this.map = openMap(config);
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
        return new MapApiStore(openMap(config), config.path());
    }

    private static ChronicleMap<byte[], byte[]> openMap(StoreConfig config) {
        ChronicleMapBuilder<byte[], byte[]> b = ChronicleMap.of(byte[].class, byte[].class)
                .name("psmr-kvstore")
                .entries(config.entries())
                .averageKeySize(config.averageKeyBytes())
                .averageValueSize(config.averageValueBytes())
                .maxBloatFactor(StoreConfig.MAX_BLOAT_FACTOR)
                // Chronicle's own exit hook would close the map under a worker still executing a batch while the
                // node's shutdown hook stops the replica in order (scheduler, then store), a FAIL-STOP at every stop.
                .skipCloseOnExitHook(true);
        Path path = config.path();
        try {
            return path == null ? b.create() : b.createPersistedTo(path.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the Chronicle Map file " + path + ": " + e.getMessage(), e);
        }
    }

    /** A query context for {@code key}, copied into this thread's key scratch store. Close it. */
    private ExternalMapQueryContext<byte[], byte[], ?> context(Scratch s, byte[] key) {
        return map.queryContext(s.key(key), 0, key.length);
    }

    @Override
    public byte[] get(byte[] key) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = context(scratch.get(), key)) {
            c.readLock().lock();
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return null;
            }
            Data<byte[]> v = e.value();
            byte[] out = new byte[Math.toIntExact(v.size())];
            v.bytes().read(v.offset(), out, 0, out.length);
            return out;
        }
    }

    @Override
    public boolean putIfAbsent(byte[] key, byte[] value) {
        Scratch s = scratch.get();
        try (ExternalMapQueryContext<byte[], byte[], ?> c = context(s, key)) {
            c.updateLock().lock();
            MapAbsentEntry<byte[], byte[]> absent = c.absentEntry();
            if (absent == null) {
                return false;
            }
            c.insert(absent, c.wrapValueBytesAsData(s.value(value), 0, value.length));
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
        Scratch s = scratch.get();
        try (ExternalMapQueryContext<byte[], byte[], ?> c = context(s, key)) {
            c.updateLock().lock(); // as Map.put: read the previous value and write under one lock
            Data<byte[]> v = c.wrapValueBytesAsData(s.value(value), 0, value.length);
            MapEntry<byte[], byte[]> e = c.entry();
            if (e != null) {
                int previous = Math.toIntExact(e.value().size());
                c.replaceValue(e, v);
                return previous;
            }
            c.insert(c.absentEntry(), v);
            return -1;
        }
    }

    @Override
    public int replaceReturningPreviousSize(byte[] key, byte[] value) {
        Scratch s = scratch.get();
        try (ExternalMapQueryContext<byte[], byte[], ?> c = context(s, key)) {
            c.updateLock().lock();
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return -1;
            }
            int previous = Math.toIntExact(e.value().size());
            c.replaceValue(e, c.wrapValueBytesAsData(s.value(value), 0, value.length));
            return previous;
        }
    }

    @Override
    public int removeReturningPreviousSize(byte[] key) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = context(scratch.get(), key)) {
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

    /**
     * One thread's scratch: heap stores the key and value are copied into for the duration of one
     * call. A store grows (to the next power of two) only when a longer key or value arrives.
     */
    private static final class Scratch {
        private BytesStore<?, byte[]> key = BytesStore.wrap(new byte[64]);
        private BytesStore<?, byte[]> value = BytesStore.wrap(new byte[256]);

        BytesStore<?, byte[]> key(byte[] k) {
            if (k.length > key.capacity()) {
                key = BytesStore.wrap(new byte[grown(k.length)]);
            }
            key.write(0, k, 0, k.length);
            return key;
        }

        BytesStore<?, byte[]> value(byte[] v) {
            if (v.length > value.capacity()) {
                value = BytesStore.wrap(new byte[grown(v.length)]);
            }
            value.write(0, v, 0, v.length);
            return value;
        }

        private static int grown(int length) {
            return length > (1 << 30) ? Integer.MAX_VALUE - 8 : Integer.highestOneBit(length - 1) << 1;
        }
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
