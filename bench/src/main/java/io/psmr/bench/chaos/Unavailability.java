package io.psmr.bench.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import io.psmr.bench.chaos.ChaosReport.Window;

/**
 * The periods in which no operation completed with an answer for longer than a threshold, from a
 * load's completion times. A window still open when the load ended counts up to the end. Stateless.
 */
final class Unavailability {

    private Unavailability() {
    }

    /**
     * @param completionNanos the completion times of the answered operations ({@link System#nanoTime()}), any order
     * @param startNanos      the start of the load
     * @param endNanos        its end
     * @param thresholdMillis the shortest gap reported
     */
    static List<Window> windows(long[] completionNanos, long startNanos, long endNanos, long thresholdMillis) {
        long[] sorted = completionNanos.clone();
        Arrays.sort(sorted);
        long threshold = thresholdMillis * 1_000_000L;
        List<Window> windows = new ArrayList<>();
        long previous = startNanos;
        for (long c : sorted) {
            if (c - previous > threshold) {
                windows.add(window(previous, c, startNanos));
            }
            previous = Math.max(previous, c);
        }
        if (endNanos - previous > threshold) {
            windows.add(window(previous, endNanos, startNanos));
        }
        return windows;
    }

    private static Window window(long from, long to, long start) {
        return new Window((from - start) / 1_000_000L, (to - from) / 1_000_000L);
    }
}
