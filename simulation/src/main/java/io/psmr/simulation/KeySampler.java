package io.psmr.simulation;

import java.util.SplittableRandom;

/**
 * Draws one key of the key space {@code [0, K)}. Implementations hold only immutable parameters,
 * so one instance may be shared by threads that each bring their own random source.
 */
public interface KeySampler {

    /** One key in {@code [0, K)}. */
    long next(SplittableRandom random);

    /** The sampler for a distribution over {@code keys} keys; {@code zipfTheta} is used by ZIPF only. */
    static KeySampler of(KeyDistribution distribution, long keys, double zipfTheta) {
        return switch (distribution) {
            case UNIFORM -> new UniformKeySampler(keys);
            case ZIPF -> new ZipfKeySampler(keys, zipfTheta);
        };
    }
}
