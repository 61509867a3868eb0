package io.psmr.bench.scheduler.service;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.scheduler.Service;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * The minimal service of {@code psmr bench --service map}: each command is one {@code get} or one
 * {@code merge} on a {@link ConcurrentHashMap} of {@code long} keys, prepopulated, so that the
 * scheduler's own overhead shows without Chronicle Map's cost.
 *
 * <p>A merge folds the operand in as {@code old * 31 + operand}: cheap, deterministic, and
 * dependent on order, so that two replicas that ran conflicting writes in different orders end in
 * different states (a commutative sum would hide that).
 *
 * <p><b>Threads.</b> {@link #execute} is called by the scheduler's workers, concurrently for
 * commands of non-conflicting batches; the map makes that safe. It never blocks on anything but the
 * map's per-bin locks.
 */
public final class MapService implements Service<MapCommand, Long> {

    /** Keys the map is populated with at least: {@code 0 .. KEYS-1}. */
    public static final int KEYS = 1_000_000;
    /** The map key of the hot key that conflicting batches write. */
    public static final long HOT_KEY = BenchWorkload.HOT_KEY_INDEX;

    private static final BiFunction<Long, Long, Long> FOLD = (old, operand) -> old * 31 + operand;

    private final ConcurrentHashMap<Long, Long> map;
    private final BusyWork work;

    /**
     * A map with keys {@code 0 .. max(KEYS, keys)-1} and {@link #HOT_KEY}, every value 0.
     *
     * @param keys the keys the workloads use, so that no two workload keys share a map key
     * @param work the extra work per command
     */
    public MapService(int keys, BusyWork work) {
        int n = Math.max(KEYS, keys);
        map = new ConcurrentHashMap<>(n + n / 3 + 16);
        Long zero = 0L;
        for (long k = 0; k < n; k++) {
            map.put(k, zero);
        }
        map.put(HOT_KEY, zero);
        this.work = work;
    }

    @Override
    public Long execute(MapCommand command) {
        Long k = command.mapKey();
        work.run(k);
        return command.write() ? map.merge(k, command.operand(), FOLD) : map.get(k);
    }

    /** A copy of the map, sorted by key: for comparing states. Not atomic under concurrent writes. */
    public Map<Long, Long> contents() {
        return new TreeMap<>(map);
    }

    /** Number of keys. */
    public int size() {
        return map.size();
    }
}
