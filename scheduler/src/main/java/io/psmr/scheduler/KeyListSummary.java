package io.psmr.scheduler;

import java.util.List;

/**
 * {@link ConflictMode#KEYS_PAIRWISE}: the batch's keys as a plain list, compared pairwise, exactly
 * as Algorithm 1's {@code cmmdKeyConflict}: O(|B1| × |B2|) key comparisons per pair of batches.
 */
public final class KeyListSummary implements ConflictSummary {

    private final Key[] keys;

    /** A summary of the given keys, in command order, duplicates included. */
    public KeyListSummary(List<Key> keys) {
        this.keys = keys.toArray(new Key[0]);
    }

    /** Number of keys listed. */
    public int size() {
        return keys.length;
    }

    @Override
    public ConflictMode mode() {
        return ConflictMode.KEYS_PAIRWISE;
    }

    @Override
    public boolean conflictsWith(ConflictSummary other) {
        ConflictSummary.requireMode(ConflictMode.KEYS_PAIRWISE, other);
        Key[] theirs = ((KeyListSummary) other).keys;
        for (Key mine : keys) {
            for (Key their : theirs) {
                if (mine.sameBytes(their.bytes())) {
                    return true;
                }
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
        for (Key k : keys) {
            if (k.sameBytes(key)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void forEachElement(ElementVisitor visitor) {
        for (Key k : keys) {
            visitor.onKey(k, true);
        }
    }

    @Override
    public String toString() {
        return "KeyListSummary[" + keys.length + " keys]";
    }
}
