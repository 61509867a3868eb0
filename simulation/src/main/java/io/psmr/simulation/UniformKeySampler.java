package io.psmr.simulation;

import java.util.SplittableRandom;

/** Uniform keys in {@code [0, K)}. */
public final class UniformKeySampler implements KeySampler {

    /** Largest supported key space: {@code 2K} must fit in a positive long (see {@link #next}). */
    public static final long MAX_KEYS = 1L << 62;

    private final long keys;
    private final long twiceKeys;

    /** A sampler over {@code keys} keys, {@code 1 <= keys <= 2^62}. */
    public UniformKeySampler(long keys) {
        if (keys < 1 || keys > MAX_KEYS) {
            throw new IllegalArgumentException("key count must be in [1, 2^62], got " + keys);
        }
        this.keys = keys;
        this.twiceKeys = keys << 1;
    }

    /** The size of the key space. */
    public long keys() {
        return keys;
    }

    @Override
    public long next(SplittableRandom random) {
        // Multiply-high of a uniform 63-bit number by 2K is floor(u * K / 2^63): a key in [0, K)
        // with bias at most K / 2^63, without the 64-bit division that nextLong(bound) costs on
        // every one of the ~10^9 draws of a Table I run.
        return Math.multiplyHigh(random.nextLong() >>> 1, twiceKeys);
    }
}
