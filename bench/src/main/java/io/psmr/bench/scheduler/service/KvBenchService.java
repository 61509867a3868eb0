package io.psmr.bench.scheduler.service;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvService;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StoreConfig;
import io.psmr.scheduler.Service;
import java.util.Arrays;
import java.util.List;

/**
 * {@code --service kv}: the replica's {@link KvService} on Chronicle Map (or, with {@code --store
 * heap}, on a heap map), populated with every key the workloads use. With extra work, each command
 * first runs its {@link BusyWork}, seeded from its key.
 */
public final class KvBenchService implements BenchService<KvCommand, KvResult> {

    private final KvStore store;
    private final boolean heap;
    private final Service<KvCommand, KvResult> service;

    private KvBenchService(KvStore store, boolean heap, BusyWork work) {
        this.store = store;
        this.heap = heap;
        KvService kv = new KvService(store, KvLimits.defaults());
        this.service = work.iterations() == 0 ? kv : command -> {
            work.run(Arrays.hashCode(command.key()));
            return kv.execute(command);
        };
    }

    /**
     * Opens and populates a store for keys {@code 0 .. keys-1} and the hot key.
     *
     * @param heap a heap map instead of Chronicle Map
     */
    public static KvBenchService open(int keys, boolean heap, BusyWork work) {
        StoreConfig config = (heap ? StoreConfig.heap() : StoreConfig.defaults())
                .sized(keys + 1L, BenchWorkload.KEY_BYTES, BenchWorkload.VALUE_BYTES);
        KvStore store = config.open();
        try {
            BenchWorkload.populate(store, keys);
            return new KvBenchService(store, heap, work);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    @Override
    public Service<KvCommand, KvResult> service() {
        return service;
    }

    @Override
    public List<List<KvCommand>> batches(BenchWorkload workload) {
        return workload.batches();
    }

    @Override
    public int observe(KvResult result) {
        return result.status().ordinal();
    }


    @Override
    public void close() {
        store.close();
    }
}
