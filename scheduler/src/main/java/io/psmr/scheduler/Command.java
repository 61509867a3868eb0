package io.psmr.scheduler;

/**
 * A command of the replicated service, as far as scheduling is concerned: its conflict footprint.
 *
 * <p>The footprint is the list of keys the command touches, each flagged as written or only read.
 * The scheduler never looks at anything else. Two commands conflict when they share a key that at
 * least one of them writes ({@link ConflictMode#RW_BITMAP}) or, in the paper's modes, when they
 * share any key at all.
 *
 * <p>Keys are read by index so that summarising a command allocates nothing. Implementations must
 * return the same keys every time and must not change a key array after handing it out; the
 * scheduler may read a command from any thread once it has been delivered.
 */
public interface Command {

    /** Number of keys in the footprint; at least 0. A command with no keys conflicts with nothing. */
    int keyCount();

    /**
     * The {@code i}-th key, as bytes. The scheduler never modifies the array.
     *
     * @param i index in {@code [0, keyCount())}
     */
    byte[] key(int i);

    /**
     * Whether the command writes the {@code i}-th key. A key that is read and written is a write.
     *
     * @param i index in {@code [0, keyCount())}
     */
    boolean writes(int i);
}
