package io.psmr.bench.demo;

import io.psmr.scheduler.Command;

/**
 * A synthetic command of the demo workload: one key, read or written. The key is a number in
 * {@code [0, keySpace)}, encoded as 8 little-endian bytes, which is what the scheduler sees.
 * Immutable.
 */
public final class SyntheticCommand implements Command {

    private final int key;
    private final boolean write;
    private final byte[] keyBytes;

    /**
     * @param key   the key, at least 0
     * @param write whether the command writes the key (otherwise it only reads it)
     */
    public SyntheticCommand(int key, boolean write) {
        if (key < 0) {
            throw new IllegalArgumentException("key must be at least 0, got " + key);
        }
        this.key = key;
        this.write = write;
        this.keyBytes = encode(key);
    }

    /** The key as 8 little-endian bytes. */
    static byte[] encode(long key) {
        byte[] b = new byte[Long.BYTES];
        for (int i = 0; i < Long.BYTES; i++) {
            b[i] = (byte) (key >>> (8 * i));
        }
        return b;
    }

    /** The key as a number. */
    public int keyNumber() {
        return key;
    }

    /** Whether the command writes its key. */
    public boolean isWrite() {
        return write;
    }

    @Override
    public int keyCount() {
        return 1;
    }

    @Override
    public byte[] key(int i) {
        if (i != 0) {
            throw new IndexOutOfBoundsException("a synthetic command has one key; asked for key " + i);
        }
        return keyBytes;
    }

    @Override
    public boolean writes(int i) {
        if (i != 0) {
            throw new IndexOutOfBoundsException("a synthetic command has one key; asked for key " + i);
        }
        return write;
    }

    @Override
    public String toString() {
        return (write ? "write(" : "read(") + key + ")";
    }
}
