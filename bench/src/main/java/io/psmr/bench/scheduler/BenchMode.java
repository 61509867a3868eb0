package io.psmr.bench.scheduler;

import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictMode;
import io.psmr.scheduler.GraphKind;
import java.util.Locale;

/**
 * The scheduler configurations that {@code psmr bench} compares: a conflict-detection mode and a
 * dependency graph, or no scheduler at all.
 */
public enum BenchMode {

    /** Exact keys compared pairwise in the monitor graph: CBASE at batch 1, "batch + keys" above. */
    KEYS("keys", ConflictMode.KEYS_PAIRWISE, GraphKind.MONITOR),
    /** Exact keys in hashed sets, indexed graph (not in the paper; not run unless asked). */
    KEYS_HASHED("keys-hashed", ConflictMode.KEYS_HASHED, GraphKind.INDEXED),
    /** One bitmap per batch, Algorithm 1's graph (every pending batch compared). */
    BITMAP_MONITOR("bitmap-monitor", ConflictMode.BITMAP, GraphKind.MONITOR),
    /** One bitmap per batch, the indexed graph (only the last writer of each bit). */
    BITMAP_INDEXED("bitmap-indexed", ConflictMode.BITMAP, GraphKind.INDEXED),
    /** Read and write bitmaps, indexed graph. */
    RW_BITMAP("rw-bitmap", ConflictMode.RW_BITMAP, GraphKind.INDEXED),
    /** No scheduler: the delivery thread executes each batch itself. The limit reference. */
    SEQUENTIAL("sequential", null, null);

    private final String cliName;
    private final ConflictMode conflictMode;
    private final GraphKind graph;

    BenchMode(String cliName, ConflictMode conflictMode, GraphKind graph) {
        this.cliName = cliName;
        this.conflictMode = conflictMode;
        this.graph = graph;
    }

    /** The name on the command line ({@code --modes}). */
    public String cliName() {
        return cliName;
    }

    /** The {@code mode} column of results.csv: the conflict mode in lower case, or {@code sequential}. */
    public String csvMode() {
        return conflictMode == null ? "sequential" : conflictMode.name().toLowerCase(Locale.ROOT);
    }

    /** The {@code graph} column of results.csv: {@code monitor}, {@code indexed} or {@code none}. */
    public String csvGraph() {
        return graph == null ? "none" : graph.name().toLowerCase(Locale.ROOT);
    }

    /** Whether this runs the parallel scheduler. */
    public boolean parallel() {
        return graph != null;
    }

    /** The dependency graph; null for {@link #SEQUENTIAL}. */
    public GraphKind graph() {
        return graph;
    }

    /** The conflict-detection mode; null for {@link #SEQUENTIAL}. */
    public ConflictMode conflictMode() {
        return conflictMode;
    }

    /** The scheduler settings for bitmaps of {@code bits} bits (Roaring); null for {@link #SEQUENTIAL}. */
    public ConflictDetection detection(int bits) {
        if (conflictMode == null) {
            return null;
        }
        return switch (conflictMode) {
            case KEYS_PAIRWISE -> ConflictDetection.keysPairwise();
            case KEYS_HASHED -> ConflictDetection.keysHashed();
            case BITMAP -> ConflictDetection.bitmap(bits);
            case RW_BITMAP -> ConflictDetection.rwBitmap(bits);
        };
    }

    /** A label for tables and charts, e.g. {@code bitmap-indexed}; at batch 1 KEYS is {@code CBASE}. */
    public String label(int batch) {
        return this == KEYS && batch == 1 ? "CBASE" : cliName;
    }

    /** The mode named {@code name} on the command line, or null. */
    public static BenchMode byCliName(String name) {
        for (BenchMode m : values()) {
            if (m.cliName.equals(name)) {
                return m;
            }
        }
        return null;
    }
}
