package io.psmr.ordering.transport;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link ReconnectingLink} waits between connection attempts: {@code min} after the first failure, doubling
 * after each further one up to {@code max}, and back to {@code min} once a connection is established.
 *
 * @param min first delay before reconnecting to a peer that is down or closed the connection; at least 1 ms
 * @param max the delay doubles up to this; at least {@code min}
 */
public record ReconnectPolicy(Duration min, Duration max) {

    /** Validates. */
    public ReconnectPolicy {
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
        if (min.toMillis() < 1 || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("reconnect delays: min must be at least 1 ms and max at least min, got min "
                    + min + ", max " + max);
        }
    }

    /** A fresh backoff at {@link #min()}, for one link. */
    public Backoff newBackoff() {
        return new Backoff(min.toMillis(), max.toMillis());
    }
}
