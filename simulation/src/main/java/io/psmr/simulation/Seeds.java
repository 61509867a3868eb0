package io.psmr.simulation;

/**
 * Derives the seed of every cell and chunk from the one global {@code --seed}, so results depend on
 * that seed and the cell's parameters only: not on the thread count, not on which thread ran
 * which chunk, and not on which other cells share the run (a Table I cell equals the single run
 * of the same parameters).
 */
public final class Seeds {

    private Seeds() {
    }

    /** The seed of one cell: the global seed mixed with every parameter except the iteration count. */
    public static long cellSeed(long globalSeed, SimulationConfig c) {
        long h = mix(globalSeed);
        h = mix(h ^ c.bitmapBits());
        h = mix(h ^ c.batchSize());
        h = mix(h ^ c.graphSize());
        h = mix(h ^ c.keys());
        h = mix(h ^ c.distribution().ordinal());
        h = mix(h ^ Double.doubleToLongBits(c.zipfTheta()));
        h = mix(h ^ Double.doubleToLongBits(c.readFraction()));
        return mix(h ^ c.partitions());
        // The iteration count is left out so that a longer run extends a shorter one chunk by chunk.
    }

    /** The seed of chunk {@code index} of a cell. */
    public static long chunkSeed(long cellSeed, long index) {
        return mix(cellSeed ^ mix(index + 0x9E3779B97F4A7C15L));
    }

    /** SplitMix64's finaliser: a bijection that spreads every input bit over the output. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
