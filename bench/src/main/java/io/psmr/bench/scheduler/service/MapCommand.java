package io.psmr.bench.scheduler.service;

import io.psmr.scheduler.Command;
import java.util.Objects;

/**
 * A command of {@link MapService}: one read ({@code get}) or one write ({@code merge}) of one key of
 * a {@code ConcurrentHashMap}.
 *
 * <p><b>Footprint.</b> It declares exactly what it touches: one key, the same bytes as the
 * key-value command it was made from, written if it merges and read if it gets. So the scheduler
 * sees the same conflicts, summaries and bitmaps as with the key-value service.
 *
 * <p>The map key and the merge operand are boxed when the command is made, before timing, so that
 * executing it allocates nothing in the map. Immutable; safe to read from any thread.
 */
public final class MapCommand implements Command {

    private final byte[] key;
    private final boolean write;
    private final Long mapKey;
    private final MapService.Operand operand;

    /**
     * @param key     the key's bytes, for the footprint; never modified
     * @param write   a merge (true) or a get (false)
     * @param mapKey  the map's key for {@code key}
     * @param operand the value merged in (ignored by a get)
     */
    public MapCommand(byte[] key, boolean write, long mapKey, long operand) {
        this.key = Objects.requireNonNull(key, "key");
        this.write = write;
        this.mapKey = mapKey;
        this.operand = new MapService.Operand(operand);
    }

    /** Whether this merges (writes) its key; otherwise it gets (reads) it. */
    public boolean write() {
        return write;
    }

    /** The map's key, boxed once. */
    public Long mapKey() {
        return mapKey;
    }

    /** The value a merge folds in, boxed once. */
    public MapService.Operand operand() {
        return operand;
    }

    @Override
    public int keyCount() {
        return 1;
    }

    @Override
    public byte[] key(int i) {
        Objects.checkIndex(i, 1);
        return key;
    }

    @Override
    public boolean writes(int i) {
        Objects.checkIndex(i, 1);
        return write;
    }

    @Override
    public String toString() {
        return (write ? "merge " : "get ") + mapKey;
    }
}
