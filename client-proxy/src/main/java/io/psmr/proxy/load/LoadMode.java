package io.psmr.proxy.load;

import io.psmr.kvstore.ReplicaConfig;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.GraphKind;
import java.util.Locale;

/** The replica configurations {@code ./psmr load --mode} chooses between. */
public enum LoadMode {
    /** Roaring BITMAP of 1,024,000 bits, indexed graph: the default. */
    BITMAP("bitmap", 200),
    /** Read and write bitmaps of 1,024,000 bits, indexed graph: readers of a key run together. */
    RW_BITMAP("rw-bitmap", 200),
    /** Exact keys in hashed key sets, indexed graph: no false conflicts. */
    KEYS("keys", 200),
    /** CBASE-style: exact keys compared pairwise, monitor graph (Algorithm 1 as written), batches of 1 unless {@code --batch} says otherwise. */
    CBASE("cbase", 1),
    /** Classic SMR: each replica executes on its delivery thread, no graph, no workers. */
    SEQUENTIAL("sequential", 200);

    private final String label;
    private final int defaultBatch;

    LoadMode(String label, int defaultBatch) {
        this.label = label;
        this.defaultBatch = defaultBatch;
    }

    /** The name on the command line. */
    public String label() {
        return label;
    }

    /** The batch size (client commands) used when none is given. */
    public int defaultBatch() {
        return defaultBatch;
    }

    /** The mode named {@code label} on the command line (case-insensitive), or null. */
    public static LoadMode fromLabel(String label) {
        for (LoadMode m : values()) {
            if (m.label.equals(label.toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        return null;
    }

    /** The conflict detection of this mode; proxies and replicas share it. */
    public ConflictDetection detection() {
        return switch (this) {
            case RW_BITMAP -> ConflictDetection.rwBitmap(ConflictDetection.DEFAULT_BITMAP_BITS);
            case KEYS -> ConflictDetection.keysHashed();
            case CBASE -> ConflictDetection.keysPairwise();
            case BITMAP, SEQUENTIAL -> ConflictDetection.bitmap(ConflictDetection.DEFAULT_BITMAP_BITS);
        };
    }

    /** {@code base} with this mode's detection, graph and sequential setting. */
    public ReplicaConfig.Builder configure(ReplicaConfig.Builder base) {
        return base.detection(detection())
                .graph(this == CBASE ? GraphKind.MONITOR : GraphKind.INDEXED)
                .sequential(this == SEQUENTIAL);
    }
}
