package io.psmr.scheduler;

import java.util.List;

/**
 * {@link ConflictMode#KEYS_HASHED}: the batch's distinct keys in an open-addressed hash table keyed
 * by {@link KeyDigest}. A conflict test walks the smaller set and probes the larger, so it costs
 * O(min(|B1|, |B2|)) probes and compares bytes only on equal digests. Exact: no false positives.
 */
public final class KeySetSummary implements ConflictSummary {

    private final Key[] table;
    private final int mask;
    private final int size;

    /** A summary of the given keys; duplicates are kept once. */
    public KeySetSummary(List<Key> keys) {
        int capacity = Integer.highestOneBit(Math.max(4, keys.size() * 2 - 1)) << 1;
        this.table = new Key[capacity];
        this.mask = capacity - 1;
        int n = 0;
        for (Key k : keys) {
            if (insert(k)) {
                n++;
            }
        }
        this.size = n;
    }

    /** Number of distinct keys. */
    public int size() {
        return size;
    }

    private boolean insert(Key k) {
        int i = slot(k.digest());
        while (table[i] != null) {
            if (table[i].equals(k)) {
                return false;
            }
            i = (i + 1) & mask;
        }
        table[i] = k;
        return true;
    }

    private int slot(long digest) {
        // The digest is already well mixed; fold the high bits in for small tables.
        return (int) (digest ^ (digest >>> 32)) & mask;
    }

    boolean contains(byte[] key, long digest) {
        int i = slot(digest);
        Key k;
        while ((k = table[i]) != null) {
            if (k.digest() == digest && k.sameBytes(key)) {
                return true;
            }
            i = (i + 1) & mask;
        }
        return false;
    }

    @Override
    public ConflictMode mode() {
        return ConflictMode.KEYS_HASHED;
    }

    @Override
    public boolean conflictsWith(ConflictSummary other) {
        ConflictSummary.requireMode(ConflictMode.KEYS_HASHED, other);
        KeySetSummary o = (KeySetSummary) other;
        KeySetSummary small = size <= o.size ? this : o;
        KeySetSummary large = small == this ? o : this;
        for (Key k : small.table) {
            if (k != null && large.contains(k.bytes(), k.digest())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int bitmapBits() {
        return 0;
    }

    @Override
    public boolean covers(byte[] key, long digest, boolean write) {
        return contains(key, digest);
    }

    @Override
    public void forEachElement(ElementVisitor visitor) {
        for (Key k : table) {
            if (k != null) {
                visitor.onKey(k, true);
            }
        }
    }

    @Override
    public String toString() {
        return "KeySetSummary[" + size + " keys]";
    }
}
