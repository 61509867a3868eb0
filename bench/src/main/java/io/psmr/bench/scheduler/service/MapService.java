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
 * <p><b>Nothing allocated in the map.</b> Values are mutable {@link Value} cells that the merge
 * function updates in place and returns, so a merge stores no new object into the (old-generation)
 * map. With immutable {@code Long} values every merge stored a young object into an old map node:
 * card marking, and under G1 concurrent refinement, made the sequential reference swing between
 * 2.5 and 11 million merges per second from one run to the next on 2 cores, drowning the scheduler's
 * own overhead that this service exists to show. The collector's cost stays visible with
 * {@code --service kv}, whose store allocates on every command.
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

    /** A map value, changed in place under the map's bin lock by {@link #FOLD}. */
    static final class Value {
        long value;
    }

    /** A merge operand, made once per command before timing. Immutable. */
    public record Operand(long value) {
    }

    // merge(k, operand, FOLD) only ever finds k present (every key is populated), so FOLD always runs
    // and the operand itself never becomes a value.
    private static final BiFunction<Object, Object, Object> FOLD = (old, operand) -> {
        Value v = (Value) old;
        v.value = v.value * 31 + ((Operand) operand).value();
        return v;
    };

    private final ConcurrentHashMap<Long, Object> map;
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
        for (long k = 0; k < n; k++) {
            map.put(k, new Value());
        }
        map.put(HOT_KEY, new Value());
        this.work = work;
    }

    @Override
    public Long execute(MapCommand command) {
        Long k = command.mapKey();
        work.run(k);
        Object v = command.write() ? map.merge(k, command.operand(), FOLD) : map.get(k);
        if (!(v instanceof Value value)) {
            throw new IllegalStateException("map key " + k + " is not populated");
        }
        return value.value;
    }

    /** A copy of the map, sorted by key: for comparing states. Not atomic under concurrent writes. */
    public Map<Long, Long> contents() {
        Map<Long, Long> out = new TreeMap<>();
        map.forEach((k, v) -> out.put(k, ((Value) v).value));
        return out;
    }

    /** Number of keys. */
    public int size() {
        return map.size();
    }
}
