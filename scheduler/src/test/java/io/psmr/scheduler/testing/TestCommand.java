package io.psmr.scheduler.testing;

import io.psmr.scheduler.Command;

/**
 * A command over integer keys for tests: distinct keys, each read or written. Its id is unique in a
 * workload so that per-key orders can be compared.
 */
public final class TestCommand implements Command {

    private final long id;
    private final long[] keys;
    private final boolean[] writes;
    private final byte[][] keyBytes;

    public TestCommand(long id, long[] keys, boolean[] writes) {
        this.id = id;
        this.keys = keys;
        this.writes = writes;
        this.keyBytes = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            keyBytes[i] = encode(keys[i]);
        }
    }

    /** A command writing one key. */
    public static TestCommand write(long id, long key) {
        return new TestCommand(id, new long[] {key}, new boolean[] {true});
    }

    /** A command reading one key. */
    public static TestCommand read(long id, long key) {
        return new TestCommand(id, new long[] {key}, new boolean[] {false});
    }

    /** The 8 little-endian bytes of {@code key}: the encoding KeyDigest.digest(long) hashes. */
    public static byte[] encode(long key) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (key >>> (8 * i));
        }
        return b;
    }

    public long id() {
        return id;
    }

    public long longKey(int i) {
        return keys[i];
    }

    @Override
    public int keyCount() {
        return keys.length;
    }

    @Override
    public byte[] key(int i) {
        return keyBytes[i];
    }

    @Override
    public boolean writes(int i) {
        return writes[i];
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("cmd#").append(id).append('[');
        for (int i = 0; i < keys.length; i++) {
            sb.append(i == 0 ? "" : ",").append(writes[i] ? "w" : "r").append(keys[i]);
        }
        return sb.append(']').toString();
    }
}
