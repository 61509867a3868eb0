package io.psmr.kvstore;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * A {@link KvStore} on the Java heap, over a {@link ConcurrentHashMap}. For comparison with the
 * Chronicle Map backend and for tests; the replica uses Chronicle Map by default. Unbounded by
 * itself: the replica bounds it through its replicated {@link StoreCapacity}.
 */
public final class HeapKvStore implements KvStore {

    private final ConcurrentHashMap<ByteBuffer, byte[]> map = new ConcurrentHashMap<>();

    private static ByteBuffer k(byte[] key) {
        return ByteBuffer.wrap(key);
    }

    @Override
    public byte[] get(byte[] key) {
        byte[] v = map.get(k(key));
        return v == null ? null : v.clone();
    }

    @Override
    public boolean putIfAbsent(byte[] key, byte[] value) {
        return map.putIfAbsent(k(key), value) == null;
    }

    @Override
    public boolean replace(byte[] key, byte[] value) {
        return map.replace(k(key), value) != null;
    }

    @Override
    public void put(byte[] key, byte[] value) {
        map.put(k(key), value);
    }

    @Override
    public boolean remove(byte[] key) {
        return map.remove(k(key)) != null;
    }

    @Override
    public byte[] putAndGetPrevious(byte[] key, byte[] value) {
        return map.put(k(key), value);
    }

    @Override
    public byte[] replaceAndGetPrevious(byte[] key, byte[] value) {
        return map.replace(k(key), value);
    }

    @Override
    public byte[] removeAndGetPrevious(byte[] key) {
        return map.remove(k(key));
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public void forEach(BiConsumer<byte[], byte[]> action) {
        map.forEach((key, value) -> action.accept(key.array(), value));
    }

    @Override
    public void close() {
        map.clear();
    }

    @Override
    public String toString() {
        return "HeapKvStore[" + map.size() + " entries]";
    }
}
