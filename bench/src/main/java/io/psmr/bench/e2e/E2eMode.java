package io.psmr.bench.e2e;

import io.psmr.bench.scheduler.BenchMode;

/**
 * The replica configurations {@code psmr bench e2e} compares: the scheduler benchmark's
 * {@link BenchMode}s, with CBASE (exact keys compared pairwise, monitor graph, batches of 1) as a
 * mode of its own, because end to end the batch size is the proxy's and belongs to the mode.
 */
public enum E2eMode {

    /** CBASE: batches of 1, exact keys compared pairwise, monitor graph. The ratio reference. */
    CBASE("cbase", BenchMode.KEYS, true),
    /** Batches of {@code --batch}, exact keys compared pairwise, monitor graph (the paper's "batch + keys"). */
    KEYS("keys", BenchMode.KEYS, false),
    /** One bitmap per batch, Algorithm 1's graph. */
    BITMAP_MONITOR("bitmap-monitor", BenchMode.BITMAP_MONITOR, false),
    /** One bitmap per batch, the indexed graph. */
    BITMAP_INDEXED("bitmap-indexed", BenchMode.BITMAP_INDEXED, false),
    /** Read and write bitmaps, the indexed graph. */
    RW_BITMAP("rw-bitmap", BenchMode.RW_BITMAP, false),
    /** Classic SMR: the replica executes on its delivery thread, no graph, no workers. */
    SEQUENTIAL("sequential", BenchMode.SEQUENTIAL, false),
    /** Exact keys in hashed sets, indexed graph ({@code ./psmr load --mode keys}); only when asked. */
    KEYS_HASHED("keys-hashed", BenchMode.KEYS_HASHED, false);

    private final String cliName;
    private final BenchMode bench;
    private final boolean batchOfOne;

    E2eMode(String cliName, BenchMode bench, boolean batchOfOne) {
        this.cliName = cliName;
        this.bench = bench;
        this.batchOfOne = batchOfOne;
    }

    /** The name on the command line and in tables. */
    public String cliName() {
        return cliName;
    }

    /** The scheduler configuration: detection, graph, or none. */
    public BenchMode bench() {
        return bench;
    }

    /** The most client commands per batch: 1 for CBASE, else {@code batch}. */
    public int batch(int batch) {
        return batchOfOne ? 1 : batch;
    }

    /** The mode named {@code name} on the command line, or null. */
    public static E2eMode byCliName(String name) {
        for (E2eMode m : values()) {
            if (m.cliName.equals(name)) {
                return m;
            }
        }
        return null;
    }
}
