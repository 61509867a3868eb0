package io.psmr.bench.scheduler.service;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvService;
import io.psmr.kvstore.KvStore;
import io.psmr.scheduler.Service;
import java.util.Arrays;
import java.util.List;

/**
 * {@code --service kv}: the replica's {@link KvService} on a {@link BenchStore} (Chronicle Map, as a
 * replica runs it, by default), populated with every key the workloads use. With extra work, each command
 * first runs its {@link BusyWork}, seeded from its key.
 */
public final class KvBenchService implements BenchService<KvCommand, KvResult> {

    private final KvStore store;
    private final Service<KvCommand, KvResult> service;

    private KvBenchService(KvStore store, BusyWork work) {
        this.store = store;
        KvService kv = new KvService(store, KvLimits.defaults());
        this.service = work.iterations() == 0 ? kv : command -> {
            work.run(Arrays.hashCode(command.key()));
            return kv.execute(command);
        };
    }

    /** Opens a store of kind {@code kind} and populates it with keys {@code 0 .. keys-1} and the hot key. */
    public static KvBenchService open(int keys, BenchStore kind, BusyWork work) {
        KvStore store = kind.open(keys + 1L, BenchWorkload.KEY_BYTES, BenchWorkload.VALUE_BYTES);
        try {
            BenchWorkload.populate(store, keys);
            return new KvBenchService(store, work);
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
