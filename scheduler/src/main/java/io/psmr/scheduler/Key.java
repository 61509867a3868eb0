package io.psmr.scheduler;

import java.util.Arrays;

/**
 * A key as the exact-key conflict modes hold it: its bytes and its {@link KeyDigest}. Equality is
 * byte equality; the digest only speeds up hashing, so a digest collision can never make two
 * different keys equal.
 */
public final class Key {

    private final byte[] bytes;
    private final long digest;

    /** Wraps {@code bytes}, which the caller must not modify afterwards. */
    public Key(byte[] bytes) {
        this.bytes = bytes;
        this.digest = KeyDigest.digest(bytes);
    }

    /** The key's bytes; do not modify. */
    public byte[] bytes() {
        return bytes;
    }

    /** The key's {@link KeyDigest}. */
    public long digest() {
        return digest;
    }

    /** Whether this key's bytes equal {@code other}. */
    public boolean sameBytes(byte[] other) {
        return Arrays.equals(bytes, other);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Key k && k.digest == digest && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(digest);
    }

    @Override
    public String toString() {
        return KeyFormat.describe(bytes);
    }
}
