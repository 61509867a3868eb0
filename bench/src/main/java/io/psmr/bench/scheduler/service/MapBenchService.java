package io.psmr.bench.scheduler.service;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvOp;
import io.psmr.scheduler.Service;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --service map}: every key-value command becomes one {@link MapCommand} on a
 * {@link MapService}: a READ a {@code get}, an UPDATE a {@code merge}, of the map key
 * {@link BenchWorkload#keyIndex} gives (the hot key's is {@link MapService#HOT_KEY}). The operand
 * is the command's request sequence number.
 */
public final class MapBenchService implements BenchService<MapCommand, Long> {

    private final MapService map;
    private final Map<BenchWorkload, List<List<MapCommand>>> converted = new IdentityHashMap<>();

    /** A map service for workloads of up to {@code keys} keys. */
    public MapBenchService(int keys, BusyWork work) {
        this.map = new MapService(keys, work);
    }

    /** The map command for key-value command {@code c} (a single-key READ or UPDATE). */
    public static MapCommand convert(KvCommand c) {
        if (c.keyCount() != 1 || (c.op() != KvOp.READ && c.op() != KvOp.UPDATE)) {
            throw new IllegalArgumentException("only single-key READs and UPDATEs convert, got " + c);
        }
        byte[] key = c.key(0);
        return new MapCommand(key, c.writes(0), BenchWorkload.keyIndex(key), c.requestSeq());
    }

    /** The map. */
    public MapService map() {
        return map;
    }

    @Override
    public Service<MapCommand, Long> service() {
        return map;
    }

    @Override
    public List<List<MapCommand>> batches(BenchWorkload workload) {
        return converted.computeIfAbsent(workload, w -> {
            List<List<MapCommand>> out = new ArrayList<>(w.cycleLength());
            for (List<KvCommand> batch : w.batches()) {
                List<MapCommand> b = new ArrayList<>(batch.size());
                for (KvCommand c : batch) {
                    b.add(convert(c));
                }
                out.add(List.copyOf(b));
            }
            return List.copyOf(out);
        });
    }

    @Override
    public int observe(Long result) {
        return result == null ? 0 : (int) result.longValue();
    }


    @Override
    public void close() {
    }
}
