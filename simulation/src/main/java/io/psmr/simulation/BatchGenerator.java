package io.psmr.simulation;

import io.psmr.scheduler.KeyDigest;
import java.util.SplittableRandom;

/**
 * The stream of incoming batches of one chunk: keys and, per key, whether it is written.
 *
 * <p>Keys and accesses come from two independent random sources, so the key stream does not
 * change with the read fraction: a run with {@code --read-fraction 0.5} sees the same keys as one
 * without, and its write-only bitmap figure is identical.
 *
 * <p>Uniform batches hold B distinct keys (the paper's "a batch encodes B keys", and why B &gt; K
 * is refused); duplicates are redrawn. Zipf batches keep each command's draw, duplicates included,
 * because redrawing hot keys would flatten the very skew the distribution is there to show, and
 * could take forever when B nears the keys that carry the mass.
 *
 * <p>Not thread-safe: one generator per chunk.
 */
final class BatchGenerator {

    private final KeySampler sampler;
    private final SplittableRandom keyRandom;
    private final SplittableRandom accessRandom;
    private final double readFraction;
    private final boolean distinct;
    private final int batchSize;

    BatchGenerator(SimulationConfig config, long seed) {
        this.sampler = config.sampler();
        SplittableRandom root = new SplittableRandom(seed);
        this.keyRandom = root.split();
        this.accessRandom = root.split();
        this.readFraction = config.readFraction();
        this.distinct = config.distinctKeysPerBatch();
        this.batchSize = config.batchSize();
    }

    /**
     * Draws the next batch into {@code keys[0..B)}, their {@code KeyDigest}s into
     * {@code digests[0..B)}, {@code writes[0..B)}, and into {@code set}, which it clears first.
     */
    void next(long[] keys, long[] digests, boolean[] writes, BatchKeySet set) {
        set.clear();
        for (int j = 0; j < batchSize; j++) {
            boolean write = readFraction == 0.0 || accessRandom.nextDouble() >= readFraction;
            long key = sampler.next(keyRandom);
            long digest = KeyDigest.digest(key);
            if (distinct) {
                while (!set.add(key, digest, write, false)) {
                    key = sampler.next(keyRandom);
                    digest = KeyDigest.digest(key);
                }
            } else {
                set.add(key, digest, write, true);
            }
            keys[j] = key;
            digests[j] = digest;
            writes[j] = write;
        }
    }
}
