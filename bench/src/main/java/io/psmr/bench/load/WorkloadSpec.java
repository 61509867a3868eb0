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
 * <p><b>Partitions</b> (MLBFT's cross-border requests, for {@code psmr bench e2e --cross-partition}). With
 * {@code partitions} P above 0, key {@code k} belongs to partition {@code k mod P}; every MULTI_PUT of the mix above
 * takes its keys from one partition, and exactly {@code crossPartitionPct} of every 100 consecutive operations of a
 * client are instead MULTI_PUTs whose {@code multiPutKeys} keys alternate between two different partitions. See
 * {@link CommandMix}. With P = 0 (the default) keys have no partitions.
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
 * @param partitions       key partitions, 0 for none or 2 and more; at most {@code keys / multiPutKeys}
 * @param crossPartitionPct percentage of operations that are two-partition MULTI_PUTs, 0 to 100; above 0 needs
 *                         {@code partitions} of at least 2 and {@code multiPutKeys} of at least 2
 */
public record WorkloadSpec(int clients, int keys, double readFraction, double multiPutFraction, int multiPutKeys,
                           int valueSize, Duration duration, long opsPerClient, long seed, int partitions,
                           int crossPartitionPct) {

    /** A workload without partitions. */
    public WorkloadSpec(int clients, int keys, double readFraction, double multiPutFraction, int multiPutKeys,
            int valueSize, Duration duration, long opsPerClient, long seed) {
        this(clients, keys, readFraction, multiPutFraction, multiPutKeys, valueSize, duration, opsPerClient, seed, 0, 0);
    }

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
        if (partitions < 0 || partitions == 1) {
            throw new IllegalArgumentException("partitions must be 0 (none) or at least 2, got " + partitions);
        }
        if (partitions > 0 && (long) partitions * multiPutKeys > keys) {
            throw new IllegalArgumentException("partitions (" + partitions + ") times multiPutKeys (" + multiPutKeys
                    + ") must be at most keys (" + keys + "): every partition must hold a MULTI_PUT's keys");
        }
        if (crossPartitionPct < 0 || crossPartitionPct > 100) {
            throw new IllegalArgumentException("crossPartitionPct must be from 0 to 100, got " + crossPartitionPct);
        }
        if (crossPartitionPct > 0 && (partitions < 2 || multiPutKeys < 2)) {
            throw new IllegalArgumentException("cross-partition MULTI_PUTs need at least 2 partitions and 2 keys per "
                    + "MULTI_PUT, got " + partitions + " and " + multiPutKeys);
        }
    }

    /** The same workload over {@code partitions} partitions with {@code crossPartitionPct} two-partition MULTI_PUTs. */
    public WorkloadSpec withPartitions(int partitions, int crossPartitionPct) {
        return new WorkloadSpec(clients, keys, readFraction, multiPutFraction, multiPutKeys, valueSize, duration,
                opsPerClient, seed, partitions, crossPartitionPct);
    }
}
