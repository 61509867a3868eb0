package io.psmr.kvstore.cluster.links;

import java.util.Locale;

/**
 * What a link does to the bytes it carries, as Toxiproxy's toxics: pass them, hold them (a blackhole: nothing passes,
 * nothing is closed, as when a network drops every packet and TCP keeps retrying), delay them, throttle them. Delay
 * and throttle combine; a blackhole overrides both while it lasts. Immutable.
 *
 * @param blackhole      nothing passes in either direction and new connections wait; what was sent waits in the
 *                       sockets' buffers and passes, in order, once the link heals
 * @param delayMicros    added to every chunk's passage, in microseconds (0: none)
 * @param jitterMicros   up to this much more, uniformly at random per chunk, never reordering (0: none)
 * @param bytesPerSecond the most bytes per second in each direction of each connection (0: unlimited)
 */
public record LinkCondition(boolean blackhole, long delayMicros, long jitterMicros, long bytesPerSecond) {

    /** Bytes pass as they come. */
    public static final LinkCondition PASS = new LinkCondition(false, 0, 0, 0);
    /** Nothing passes, nothing is closed. */
    public static final LinkCondition BLACKHOLE = new LinkCondition(true, 0, 0, 0);

    /** Checks the ranges. */
    public LinkCondition {
        if (delayMicros < 0 || jitterMicros < 0 || bytesPerSecond < 0) {
            throw new IllegalArgumentException("delay, jitter and rate must be at least 0, got " + delayMicros + " µs, "
                    + jitterMicros + " µs and " + bytesPerSecond + " B/s");
        }
        if (delayMicros > 60_000_000L || jitterMicros > 60_000_000L) {
            throw new IllegalArgumentException("delay and jitter must be at most 60 s, got " + delayMicros + " µs and "
                    + jitterMicros + " µs");
        }
    }

    /** Every chunk delayed by {@code delayMillis} plus up to {@code jitterMillis} more. */
    public static LinkCondition delay(long delayMillis, long jitterMillis) {
        return new LinkCondition(false, delayMillis * 1000, jitterMillis * 1000, 0);
    }

    /** At most {@code bytesPerSecond} in each direction of each connection. */
    public static LinkCondition throttle(long bytesPerSecond) {
        if (bytesPerSecond < 1) {
            throw new IllegalArgumentException("a throttle needs at least 1 byte per second, got " + bytesPerSecond);
        }
        return new LinkCondition(false, 0, 0, bytesPerSecond);
    }

    /** Whether bytes pass untouched. */
    public boolean passes() {
        return !blackhole && delayMicros == 0 && jitterMicros == 0 && bytesPerSecond == 0;
    }

    @Override
    public String toString() {
        if (blackhole) {
            return "blackhole";
        }
        if (passes()) {
            return "pass";
        }
        StringBuilder b = new StringBuilder();
        if (delayMicros > 0 || jitterMicros > 0) {
            b.append(String.format(Locale.ROOT, "delay %.1f ms ± %.1f ms", delayMicros / 1000.0, jitterMicros / 1000.0));
        }
        if (bytesPerSecond > 0) {
            b.append(b.length() > 0 ? ", " : "").append("throttle ").append(bytesPerSecond).append(" B/s");
        }
        return b.toString();
    }
}
