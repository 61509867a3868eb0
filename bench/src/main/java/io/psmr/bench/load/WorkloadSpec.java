package io.psmr.bench.load;

import java.time.Duration;
import java.util.Objects;

/**
 * What the closed-loop clients of a load run do.
 *
 * <p>Each client loops: pick an operation, send it, wait for its answer, record it, repeat, until
 * the duration has passed (or it has done {@code opsPerClient} operations). Operations: with
 * probability {@code multiPutFraction} a MULTI_PUT of {@code multiPutKeys} distinct keys; else with
 * probability {@code readFraction} (of all operations) a READ; else a write: CREATE 35 %, UPDATE
 * 45 %, DELETE 20 %. Keys are {@code "k0"} … {@code "k<keys-1>"}, uniform. Values are
 * {@code valueSize} printable bytes starting with a tag unique to the client and operation
 * ({@code "s<session>.c<client>.<n>"}, the session from {@link RunControls#session()}, padded with dots, cut if longer). Each client draws from its own
 * {@link java.util.Random} seeded from {@code seed} and its index, so a run's operation sequence per
 * client is reproducible (the interleaving is not).
 *
 * @param clients          closed-loop clients, each on its own thread
 * @param keys             size of the key space
 * @param readFraction     fraction of operations that are READs, 0 to 1
 * @param multiPutFraction fraction of operations that are MULTI_PUTs, 0 to 1 (with readFraction at most 1)
 * @param multiPutKeys     keys per MULTI_PUT, 1 to {@code keys}
 * @param valueSize        bytes per value, at least 1
 * @param duration         how long clients keep issuing operations
 * @param opsPerClient     stop a client after this many operations; 0 for no limit
 * @param seed             the seed of every client's choices
 */
public record WorkloadSpec(int clients, int keys, double readFraction, double multiPutFraction, int multiPutKeys,
                           int valueSize, Duration duration, long opsPerClient, long seed) {

    /** Validates the fields. */
    public WorkloadSpec {
        Objects.requireNonNull(duration, "duration");
        if (clients < 1) {
            throw new IllegalArgumentException("clients must be at least 1, got " + clients);
        }
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be at least 1, got " + keys);
        }
        if (!(readFraction >= 0 && multiPutFraction >= 0 && readFraction + multiPutFraction <= 1)) {
            throw new IllegalArgumentException("read and MULTI_PUT fractions must be from 0 to 1 with a sum of at most 1, got "
                    + readFraction + " and " + multiPutFraction);
        }
        if (multiPutKeys < 1 || multiPutKeys > keys) {
            throw new IllegalArgumentException("multiPutKeys must be from 1 to keys (" + keys + "), got " + multiPutKeys);
        }
        if (valueSize < 1) {
            throw new IllegalArgumentException("valueSize must be at least 1, got " + valueSize);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, got " + duration);
        }
        if (opsPerClient < 0) {
            throw new IllegalArgumentException("opsPerClient must be at least 0, got " + opsPerClient);
        }
    }
}
