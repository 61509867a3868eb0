package io.psmr.simulation;

import java.util.Locale;

/**
 * One cell of the simulation: the model of the core paper's §VII-D, plus the extensions of
 * issue 3 (key distribution, read fraction, partition granularity).
 *
 * <p>An incoming batch of {@code batchSize} keys is checked against the last {@code graphSize}
 * batches, then appended to them while the oldest is dropped; this repeats {@code iterations}
 * times. Uniform batches hold distinct keys; Zipf batches draw each command's key independently,
 * so a hot key may appear twice (see {@code docs/simulation.md}).
 *
 * @param bitmapBits   bitmap size m in bits, {@code >= 1}
 * @param batchSize    keys per batch B, {@code 1..min(K, MAX_BATCH_SIZE)}
 * @param graphSize    batches in the list g, {@code >= 0}, with {@code g*B <= MAX_WINDOW_KEYS}
 * @param keys         size of the key space K, {@code 1..2^62}
 * @param iterations   incoming batches counted N, {@code >= 1}
 * @param distribution how keys are drawn
 * @param zipfTheta    Zipf exponent θ, {@code > 0}; ignored for uniform keys
 * @param readFraction probability that a key is read rather than written, in {@code [0, 1]}
 * @param partitions   P for the partition granularity ({@code key mod P}), or 0 for none
 */
public record SimulationConfig(
        int bitmapBits,
        int batchSize,
        int graphSize,
        long keys,
        long iterations,
        KeyDistribution distribution,
        double zipfTheta,
        double readFraction,
        int partitions) {

    /** Largest batch; far beyond any batch a proxy would send. */
    public static final int MAX_BATCH_SIZE = 1 << 20;
    /** Largest number of keys in the list of g batches, held in int-indexed arrays per worker. */
    public static final long MAX_WINDOW_KEYS = 1L << 26;
    /** Largest partition count: each worker keeps an {@code int} counter per partition. */
    public static final int MAX_PARTITIONS = 1 << 26;
    /** The paper's key space, 10^9 keys. */
    public static final long DEFAULT_KEYS = 1_000_000_000L;
    /** The paper's iterations per cell, 10^6. */
    public static final long DEFAULT_ITERATIONS = 1_000_000L;
    /** The default Zipf exponent, YCSB's. */
    public static final double DEFAULT_ZIPF_THETA = 0.99;

    /** The parameters, so that errors can name the one at fault. */
    public enum Parameter {
        /** {@link #bitmapBits}. */ BITMAP_BITS,
        /** {@link #batchSize}. */ BATCH_SIZE,
        /** {@link #graphSize}. */ GRAPH_SIZE,
        /** {@link #keys}. */ KEYS,
        /** {@link #iterations}. */ ITERATIONS,
        /** {@link #distribution}. */ DISTRIBUTION,
        /** {@link #zipfTheta}. */ ZIPF_THETA,
        /** {@link #readFraction}. */ READ_FRACTION,
        /** {@link #partitions}. */ PARTITIONS
    }

    /**
     * Validates the cell.
     *
     * @throws InvalidConfigException naming the first parameter out of its domain
     */
    public SimulationConfig {
        if (bitmapBits <= 0) {
            throw new InvalidConfigException(Parameter.BITMAP_BITS, "must be positive, got " + bitmapBits);
        }
        if (keys < 1 || keys > UniformKeySampler.MAX_KEYS) {
            throw new InvalidConfigException(Parameter.KEYS, "must be in [1, 2^62], got " + keys);
        }
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new InvalidConfigException(Parameter.BATCH_SIZE,
                    "must be in [1, " + MAX_BATCH_SIZE + "], got " + batchSize);
        }
        if (batchSize > keys) {
            throw new InvalidConfigException(Parameter.BATCH_SIZE,
                    "a batch of " + batchSize + " keys cannot be drawn from " + keys + " keys (B > K)");
        }
        if (graphSize < 0) {
            throw new InvalidConfigException(Parameter.GRAPH_SIZE, "must be >= 0, got " + graphSize);
        }
        if ((long) graphSize * batchSize > MAX_WINDOW_KEYS) {
            throw new InvalidConfigException(Parameter.GRAPH_SIZE, "graph size times batch size must be <= "
                    + MAX_WINDOW_KEYS + ", got " + graphSize + " * " + batchSize);
        }
        if (iterations < 1) {
            throw new InvalidConfigException(Parameter.ITERATIONS, "must be >= 1, got " + iterations);
        }
        if (distribution == null) {
            throw new InvalidConfigException(Parameter.DISTRIBUTION, "must be given");
        }
        if (distribution == KeyDistribution.ZIPF && (!(zipfTheta > 0) || Double.isInfinite(zipfTheta))) {
            throw new InvalidConfigException(Parameter.ZIPF_THETA, "must be positive and finite, got " + zipfTheta);
        }
        if (!(readFraction >= 0 && readFraction <= 1)) {
            throw new InvalidConfigException(Parameter.READ_FRACTION, "must be in [0, 1], got " + readFraction);
        }
        if (partitions < 0 || partitions > MAX_PARTITIONS) {
            throw new InvalidConfigException(Parameter.PARTITIONS,
                    "must be in [1, " + MAX_PARTITIONS + "] (or 0 for none), got " + partitions);
        }
    }

    /** The paper's model: uniform keys from 10^9, all written, no partitions. */
    public static SimulationConfig paper(int bitmapBits, int batchSize, int graphSize, long iterations) {
        return new SimulationConfig(bitmapBits, batchSize, graphSize, DEFAULT_KEYS, iterations,
                KeyDistribution.UNIFORM, DEFAULT_ZIPF_THETA, 0.0, 0);
    }

    /** This cell with another bitmap size. */
    public SimulationConfig withBitmapBits(int m) {
        return new SimulationConfig(m, batchSize, graphSize, keys, iterations, distribution, zipfTheta, readFraction,
                partitions);
    }

    /** This cell with another batch size. */
    public SimulationConfig withBatchSize(int b) {
        return new SimulationConfig(bitmapBits, b, graphSize, keys, iterations, distribution, zipfTheta, readFraction,
                partitions);
    }

    /** This cell with another graph size. */
    public SimulationConfig withGraphSize(int g) {
        return new SimulationConfig(bitmapBits, batchSize, g, keys, iterations, distribution, zipfTheta, readFraction,
                partitions);
    }

    /** This cell with another iteration count. */
    public SimulationConfig withIterations(long n) {
        return new SimulationConfig(bitmapBits, batchSize, graphSize, keys, n, distribution, zipfTheta, readFraction,
                partitions);
    }

    /** The sampler of this cell's keys. */
    public KeySampler sampler() {
        return KeySampler.of(distribution, keys, zipfTheta);
    }

    /** Whether batches hold distinct keys (uniform) or independent draws (Zipf). */
    public boolean distinctKeysPerBatch() {
        return distribution == KeyDistribution.UNIFORM;
    }

    /** A short human description, e.g. {@code m=102400 B=100 g=1 K=1000000000 uniform}. */
    public String describe() {
        StringBuilder sb = new StringBuilder()
                .append("m=").append(bitmapBits).append(" B=").append(batchSize).append(" g=").append(graphSize)
                .append(" K=").append(keys).append(' ').append(distribution.name().toLowerCase(Locale.ROOT));
        if (distribution == KeyDistribution.ZIPF) {
            sb.append("(θ=").append(zipfTheta).append(')');
        }
        if (readFraction > 0) {
            sb.append(" reads=").append(readFraction);
        }
        if (partitions > 0) {
            sb.append(" P=").append(partitions);
        }
        return sb.toString();
    }
}
