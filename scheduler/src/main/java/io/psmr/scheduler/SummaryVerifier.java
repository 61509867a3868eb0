package io.psmr.scheduler;

import java.util.List;

/**
 * Checks that a batch's summary covers every key of its commands, so that a faulty or malicious
 * proxy cannot make the scheduler miss a conflict. The check depends only on the batch, so every
 * replica reaches the same verdict.
 *
 * <p>Stateless and thread-safe; it allocates nothing on success.
 */
public final class SummaryVerifier {

    private SummaryVerifier() {
    }

    /**
     * Returns {@code null} if {@code summary} covers every key of {@code commands}, or else a
     * message naming the first command and key it misses.
     */
    public static String findProblem(ConflictSummary summary, List<? extends Command> commands) {
        for (int c = 0; c < commands.size(); c++) {
            Command command = commands.get(c);
            int n = command.keyCount();
            for (int i = 0; i < n; i++) {
                byte[] key = command.key(i);
                if (key == null) {
                    return "command " + c + " has a null key at position " + i;
                }
                long digest = KeyDigest.digest(key);
                boolean write = command.writes(i);
                if (!summary.covers(key, digest, write)) {
                    return describeMiss(summary, c, key, digest, write);
                }
            }
        }
        return null;
    }

    private static String describeMiss(ConflictSummary summary, int command, byte[] key, long digest, boolean write) {
        String access = write ? "written" : "read";
        if (summary.mode().usesBitmaps()) {
            int bit = KeyDigest.bitIndex(digest, summary.bitmapBits());
            String map = summary.mode() == ConflictMode.RW_BITMAP ? (write ? "write bitmap" : "read or write bitmap") : "bitmap";
            return "conflict summary misses a key: bit " + bit + " of " + access + " key " + KeyFormat.describe(key)
                    + " in command " + command + " is not set in the " + map;
        }
        return "conflict summary misses " + access + " key " + KeyFormat.describe(key) + " of command " + command;
    }
}
