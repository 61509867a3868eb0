package io.psmr.simulation;

/**
 * The distinct keys of one batch and whether each is written: the exact-key summary the
 * simulator compares against when two batches share a bit, to tell a true conflict from a false
 * positive.
 *
 * <p>Open addressing with linear probing over a table of at least 4 slots per key, so probes stay
 * short. Emptied in O(1) by bumping a generation stamp, because one set is reused for every
 * batch that passes through its slot of the list. Not thread-safe.
 */
final class BatchKeySet {

    /** {@link #access} of a key not in the set. */
    static final int ABSENT = 0;
    /** {@link #access} of a key that is only read. */
    static final int READ = 1;
    /** {@link #access} of a key that is written (and perhaps read too). */
    static final int WRITTEN = 2;

    private final long[] keys;
    private final boolean[] written;
    private final int[] stamp;
    private final int mask;
    private int generation = 1;

    /** A set for batches of up to {@code maxKeys} keys. */
    BatchKeySet(int maxKeys) {
        int capacity = Integer.highestOneBit(Math.max(16, maxKeys * 4 - 1)) << 1;
        this.keys = new long[capacity];
        this.written = new boolean[capacity];
        this.stamp = new int[capacity];
        this.mask = capacity - 1;
    }

    /** Empties the set. */
    void clear() {
        generation++;
        if (generation == 0) {
            // The stamp wrapped after 2^32 batches: clear once so that old stamps cannot match.
            java.util.Arrays.fill(stamp, 0);
            generation = 1;
        }
    }

    /**
     * Adds a key.
     *
     * @param digest the key's {@code KeyDigest}, computed once per key anyway and already well
     *               mixed, so it doubles as the slot hash
     * @param merge  what to do if the key is there already: true to mark it written when this
     *               access writes (a Zipf batch that accesses a key twice), false to leave it as it
     *               is (a uniform batch, which redraws the duplicate and so discards this access)
     * @return whether the key was not in the set before
     */
    boolean add(long key, long digest, boolean write, boolean merge) {
        int i = (int) digest & mask;
        while (stamp[i] == generation) {
            if (keys[i] == key) {
                if (merge) {
                    written[i] |= write;
                }
                return false;
            }
            i = (i + 1) & mask;
        }
        stamp[i] = generation;
        keys[i] = key;
        written[i] = write;
        return true;
    }

    /** {@link #ABSENT}, {@link #READ} or {@link #WRITTEN}; {@code digest} is the key's {@code KeyDigest}. */
    int access(long key, long digest) {
        int i = (int) digest & mask;
        while (stamp[i] == generation) {
            if (keys[i] == key) {
                return written[i] ? WRITTEN : READ;
            }
            i = (i + 1) & mask;
        }
        return ABSENT;
    }
}
