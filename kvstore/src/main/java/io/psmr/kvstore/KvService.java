package io.psmr.kvstore;

import io.psmr.scheduler.Service;
import java.util.Objects;

/**
 * The key-value store as a psmr {@link Service}: executes one {@link KvCommand} against a
 * {@link KvStore}. It knows nothing of clients, batches or replies; the {@link Replica} adds
 * exactly-once execution and reply routing around it. A team with its own SMR stack can drive it
 * through a scheduler directly.
 *
 * <p><b>Threads.</b> As {@link Service}: called from worker threads, concurrently only for
 * commands on different keys. Deterministic: the result depends only on the command and the state
 * of its keys.
 */
public final class KvService implements Service<KvCommand, KvResult> {

    private final KvStore store;
    private final KvLimits limits;

    /** A service over {@code store}, refusing commands over {@code limits} with TOO_LARGE. */
    public KvService(KvStore store, KvLimits limits) {
        this.store = Objects.requireNonNull(store, "store");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /** The store. */
    public KvStore store() {
        return store;
    }

    @Override
    public KvResult execute(KvCommand c) {
        String tooLarge = limits.checkCommand(c);
        if (tooLarge != null) {
            return KvResult.of(KvStatus.TOO_LARGE, tooLarge);
        }
        return switch (c.op()) {
            case CREATE -> store.putIfAbsent(c.key(), c.value()) ? KvResult.ok() : KvResult.exists();
            case READ -> {
                byte[] v = store.get(c.key());
                yield v == null ? KvResult.notFound() : KvResult.ok(v);
            }
            case UPDATE -> store.replace(c.key(), c.value()) ? KvResult.ok() : KvResult.notFound();
            case DELETE -> store.remove(c.key()) ? KvResult.ok() : KvResult.notFound();
            case MULTI_PUT -> {
                for (int i = 0; i < c.keyCount(); i++) {
                    store.put(c.key(i), c.value(i));
                }
                yield KvResult.ok();
            }
        };
    }
}
