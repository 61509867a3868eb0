package io.psmr.bench.cos;

import io.psmr.scheduler.Command;
import java.util.Arrays;

/** The conflict relation of the COS graphs: exact keys, compared pairwise. Stateless; any thread. */
public final class CosConflicts {

    private CosConflicts() {
    }

    /**
     * Whether {@code a} and {@code b} conflict: they share a key (equal bytes) that at least one of
     * them writes. A command with no keys conflicts with nothing.
     */
    public static boolean conflict(Command a, Command b) {
        int na = a.keyCount();
        int nb = b.keyCount();
        for (int i = 0; i < na; i++) {
            byte[] ka = a.key(i);
            boolean wa = a.writes(i);
            for (int j = 0; j < nb; j++) {
                if ((wa || b.writes(j)) && Arrays.equals(ka, b.key(j))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Refuses a maximum size below 1. */
    static int checkMaxSize(int maxSize) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("COS maxSize must be at least 1, got " + maxSize);
        }
        return maxSize;
    }
}
