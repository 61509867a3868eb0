package io.psmr.ordering.transport;

/**
 * Exponential delays between reconnection attempts of one link: each {@link #nextDelayMillis()} returns the
 * current delay and doubles it, capped at the maximum; {@link #reset()} goes back to the minimum.
 *
 * <p>Not thread-safe: one link's event-loop thread owns it.
 */
public final class Backoff {

    private final long minMillis;
    private final long maxMillis;
    private long currentMillis;

    /**
     * @param minMillis first delay, at least 1
     * @param maxMillis cap, at least {@code minMillis}
     */
    public Backoff(long minMillis, long maxMillis) {
        if (minMillis < 1 || maxMillis < minMillis) {
            throw new IllegalArgumentException("backoff needs 1 <= min <= max, got min " + minMillis + " ms, max " + maxMillis + " ms");
        }
        this.minMillis = minMillis;
        this.maxMillis = maxMillis;
        this.currentMillis = minMillis;
    }

    /** The delay to wait now; the one after it is twice as long, up to the maximum. */
    public long nextDelayMillis() {
        long delay = currentMillis;
        // Compare before doubling so that a maximum near Long.MAX_VALUE cannot overflow.
        currentMillis = currentMillis > maxMillis / 2 ? maxMillis : currentMillis * 2;
        return delay;
    }

    /** Back to the minimum (a connection succeeded). */
    public void reset() {
        currentMillis = minMillis;
    }

    @Override
    public String toString() {
        return "Backoff[next " + currentMillis + " ms of " + minMillis + ".." + maxMillis + "]";
    }
}
