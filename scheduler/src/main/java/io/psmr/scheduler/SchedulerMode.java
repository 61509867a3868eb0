package io.psmr.scheduler;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A scheduler configuration, as a user chooses it: how batches are compared
 * ({@link ConflictMode}), which {@link DependencyGraph} holds them, and whether batches are of one
 * command. One name per configuration, the same in every command ({@code demo}, {@code load},
 * {@code bench}, {@code bench e2e}, {@code cluster}, {@code simulate}), in results files and charts.
 *
 * <p>Immutable; any thread.
 */
public enum SchedulerMode {

    /** No scheduler: the delivery thread executes each batch itself (classic SMR). The limit reference. */
    SEQUENTIAL("sequential", null, null, false),
    /**
     * CBASE: batches of one command, exact keys compared pairwise, Algorithm 1's monitor graph.
     * The reference for the papers' ratios.
     */
    CBASE("cbase", ConflictMode.KEYS_PAIRWISE, GraphKind.MONITOR, true),
    /** Batches, exact keys compared pairwise, monitor graph: the paper's "batch + keys". */
    KEYS_PAIRWISE("keys-pairwise", ConflictMode.KEYS_PAIRWISE, GraphKind.MONITOR, false),
    /** Batches, exact keys in hashed sets, the split indexed graph: no false conflicts, O(keys) per insert. */
    KEYS_HASHED("keys-hashed", ConflictMode.KEYS_HASHED, GraphKind.SPLIT_INDEXED, false),
    /** One Bloom bitmap per batch, Algorithm 1's monitor graph (every pending batch compared). */
    BITMAP_MONITOR("bitmap-monitor", ConflictMode.BITMAP, GraphKind.MONITOR, false),
    /**
     * One Bloom bitmap per batch, the split indexed graph (only the last writer of each bit, indexed by
     * the delivery thread off the lock): the default.
     */
    BITMAP_INDEXED("bitmap-indexed", ConflictMode.BITMAP, GraphKind.SPLIT_INDEXED, false),
    /** Read and write bitmaps, the split indexed graph: readers of a key run together. */
    RW_BITMAP("rw-bitmap", ConflictMode.RW_BITMAP, GraphKind.SPLIT_INDEXED, false);

    /** The mode a replica runs when none is chosen. */
    public static final SchedulerMode DEFAULT = BITMAP_INDEXED;

    private final String cliName;
    private final ConflictMode conflictMode;
    private final GraphKind graph;
    private final boolean batchOfOne;

    SchedulerMode(String cliName, ConflictMode conflictMode, GraphKind graph, boolean batchOfOne) {
        this.cliName = cliName;
        this.conflictMode = conflictMode;
        this.graph = graph;
        this.batchOfOne = batchOfOne;
    }

    /** The name on the command line, in cluster.json, results files and charts. */
    public String cliName() {
        return cliName;
    }

    /** Whether this runs the parallel scheduler (a graph and workers). */
    public boolean parallel() {
        return graph != null;
    }

    /** The dependency graph; null for {@link #SEQUENTIAL}. */
    public GraphKind graph() {
        return graph;
    }

    /** How batches are compared; null for {@link #SEQUENTIAL}. */
    public ConflictMode conflictMode() {
        return conflictMode;
    }

    /** The most commands per batch: 1 for {@link #CBASE}, else {@code batch}. */
    public int batch(int batch) {
        return batchOfOne ? 1 : batch;
    }

    /** Whether batches hold one command whatever the batch size asked ({@link #CBASE}). */
    public boolean batchOfOne() {
        return batchOfOne;
    }

    /**
     * The conflict detection proxies and replicas share in this mode, with bitmaps of {@code bits}
     * bits (Roaring). {@link #SEQUENTIAL} gets bitmaps too: proxies still attach a summary, which a
     * sequential replica verifies and otherwise ignores.
     */
    public ConflictDetection detection(int bits) {
        if (conflictMode == null) {
            return ConflictDetection.bitmap(bits);
        }
        return switch (conflictMode) {
            case KEYS_PAIRWISE -> ConflictDetection.keysPairwise();
            case KEYS_HASHED -> ConflictDetection.keysHashed();
            case BITMAP -> ConflictDetection.bitmap(bits);
            case RW_BITMAP -> ConflictDetection.rwBitmap(bits);
        };
    }

    /** {@link #detection(int)} with the default bitmap size, {@link ConflictDetection#DEFAULT_BITMAP_BITS}. */
    public ConflictDetection detection() {
        return detection(ConflictDetection.DEFAULT_BITMAP_BITS);
    }

    /** Every name, comma-separated, in declaration order: for usage text and error messages. */
    public static String cliNames() {
        return Arrays.stream(values()).map(SchedulerMode::cliName).collect(Collectors.joining(", "));
    }

    /**
     * The mode named {@code name}.
     *
     * @throws IllegalArgumentException naming the new spelling for a name psmr used before (for
     *                                  example {@code keys} or {@code bitmap}), or listing the names
     */
    public static SchedulerMode fromCliName(String name) {
        for (SchedulerMode m : values()) {
            if (m.cliName.equals(name)) {
                return m;
            }
        }
        String lower = name == null ? "" : name.toLowerCase(Locale.ROOT);
        String renamed = switch (lower) {
            case "keys" -> "keys-pairwise (exact keys compared pairwise, monitor graph) or keys-hashed "
                    + "(exact keys in hashed sets, indexed graph)";
            case "bitmap" -> "bitmap-indexed (or bitmap-monitor for Algorithm 1's graph)";
            case "keys_pairwise", "keys_hashed", "bitmap_monitor", "bitmap_indexed", "rw_bitmap" -> lower.replace('_', '-');
            default -> null;
        };
        if (renamed != null) {
            throw new IllegalArgumentException("mode '" + name + "' is no longer a name; use " + renamed);
        }
        for (SchedulerMode m : values()) {
            if (m.cliName.equals(lower)) {
                throw new IllegalArgumentException("mode '" + name + "' must be written in lower case: " + m.cliName);
            }
        }
        throw new IllegalArgumentException("unknown mode '" + name + "'; modes: " + cliNames());
    }
}
