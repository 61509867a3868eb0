package io.psmr.kvstore;

import java.util.function.BiConsumer;

/**
 * The replica's state: a map from byte-string keys to byte-string values.
 *
 * <p><b>Threads.</b> Implementations are safe for concurrent calls from several threads. The
 * scheduler only runs commands concurrently when they touch different keys, so no caller needs
 * per-key atomicity across calls; each method is atomic for its key on its own.
 *
 * <p>Arrays passed in may be kept by the store (callers must not modify them afterwards); arrays
 * returned are the caller's.
 */
public interface KvStore extends AutoCloseable {

    /** The value of {@code key}, or null if absent. */
    byte[] get(byte[] key);

    /** Inserts {@code key} if absent. @return true if inserted, false if it was present */
    boolean putIfAbsent(byte[] key, byte[] value);

    /** Replaces the value of a present {@code key}. @return true if replaced, false if absent */
    boolean replace(byte[] key, byte[] value);

    /** Inserts or replaces. */
    void put(byte[] key, byte[] value);

    /** Removes {@code key}. @return true if it was present */
    boolean remove(byte[] key);

    /**
     * Inserts or replaces, and returns the previous value (null if absent). Used where the caller
     * accounts for sizes; the default reads first, which is atomic enough because the scheduler never
     * runs two commands on one key at once.
     */
    default byte[] putAndGetPrevious(byte[] key, byte[] value) {
        byte[] previous = get(key);
        put(key, value);
        return previous;
    }

    /** Replaces the value of a present key and returns the previous value; null (and no change) if absent. */
    default byte[] replaceAndGetPrevious(byte[] key, byte[] value) {
        byte[] previous = get(key);
        return previous != null && replace(key, value) ? previous : null;
    }

    /** Removes {@code key} and returns its value, or null if it was absent. */
    default byte[] removeAndGetPrevious(byte[] key) {
        byte[] previous = get(key);
        return previous != null && remove(key) ? previous : null;
    }

    /**
     * Inserts or replaces, and returns the previous value's length in bytes, or -1 if the key was
     * absent. The service's accounting needs only that length: a store that can measure the previous
     * value in place (as {@link ChronicleKvStore} does) overrides this to copy nothing. The default
     * calls {@link #putAndGetPrevious}.
     */
    default int putReturningPreviousSize(byte[] key, byte[] value) {
        byte[] previous = putAndGetPrevious(key, value);
        return previous == null ? -1 : previous.length;
    }

    /**
     * Replaces the value of a present key and returns the previous value's length in bytes; -1 (and
     * no change) if absent. The default calls {@link #replaceAndGetPrevious}.
     */
    default int replaceReturningPreviousSize(byte[] key, byte[] value) {
        byte[] previous = replaceAndGetPrevious(key, value);
        return previous == null ? -1 : previous.length;
    }

    /**
     * Removes {@code key} and returns its value's length in bytes, or -1 if it was absent. The
     * default calls {@link #removeAndGetPrevious}.
     */
    default int removeReturningPreviousSize(byte[] key) {
        byte[] previous = removeAndGetPrevious(key);
        return previous == null ? -1 : previous.length;
    }

    /** Number of entries. */
    long size();

    /**
     * Calls {@code action} with every entry, in no particular order. Only meaningful while no command
     * executes (for example after {@link Replica#awaitApplied}).
     */
    void forEach(BiConsumer<byte[], byte[]> action);

    /**
     * The {@link StateDigest} of the whole store: equal on two stores with equal contents, whatever
     * the order they were filled in. Only meaningful while no command executes.
     */
    default long digest() {
        return StateDigest.of(this);
    }

    /** Releases the store's memory and, for a persisted store, flushes and closes its file. Idempotent. */
    @Override
    void close();
}
