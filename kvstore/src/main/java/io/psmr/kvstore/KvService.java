package io.psmr.kvstore;

import io.psmr.scheduler.Service;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The key-value store as a psmr {@link Service}: executes one {@link KvCommand} against a
 * {@link KvStore}. It knows nothing of clients, batches or replies; the {@link Replica} adds
 * sessions, capacity and reply routing around it. A team with its own SMR stack can drive it
 * through a scheduler directly.
 *
 * <p><b>Usage.</b> It keeps the number of key-plus-value bytes the store holds ({@link #usedBytes()}),
 * from the sizes of the previous values its writes replace (the store's
 * {@code ...ReturningPreviousSize} forms, which copy no value); with the store's size, that is what
 * {@link CapacityGuard} reads when the scheduler is quiescent. A store opened with contents must be
 * counted once with {@link #recount()}.
 *
 * <p><b>Failures.</b> It declares no deterministic failure: anything the store throws (for example
 * Chronicle Map out of space) fail-stops the replica's scheduler (see {@link Service}).
 *
 * <p><b>Threads.</b> As {@link Service}: called from worker threads, concurrently only for
 * commands on different keys. Deterministic: the result depends only on the command and the state
 * of its keys.
 */
public final class KvService implements Service<KvCommand, KvResult> {

    private final KvStore store;
    private final KvLimits limits;
    private final LongAdder usedBytes = new LongAdder();

    /** A service over {@code store}, refusing commands over {@code limits} with TOO_LARGE. */
    public KvService(KvStore store, KvLimits limits) {
        this.store = Objects.requireNonNull(store, "store");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /** The store. */
    public KvStore store() {
        return store;
    }

    /** Key-plus-value bytes held; exact only while no command executes. */
    public long usedBytes() {
        return usedBytes.sum();
    }

    /** Counts the bytes of the store's current contents; only while no command executes. */
    public void recount() {
        long[] total = new long[1];
        store.forEach((k, v) -> total[0] += k.length + v.length);
        usedBytes.reset();
        usedBytes.add(total[0]);
    }

    @Override
    public KvResult execute(KvCommand c) {
        String tooLarge = limits.checkCommand(c);
        if (tooLarge != null) {
            return KvResult.of(KvStatus.TOO_LARGE, tooLarge);
        }
        return switch (c.op()) {
            case CREATE -> {
                if (!store.putIfAbsent(c.key(), c.value())) {
                    yield KvResult.exists();
                }
                usedBytes.add(c.key().length + c.value().length);
                yield KvResult.ok();
            }
            case READ -> {
                byte[] v = store.get(c.key());
                yield v == null ? KvResult.notFound() : KvResult.ok(v);
            }
            case UPDATE -> {
                int previous = store.replaceReturningPreviousSize(c.key(), c.value());
                if (previous < 0) {
                    yield KvResult.notFound();
                }
                int delta = c.value().length - previous;
                if (delta != 0) {
                    // A same-size replace, the common update, leaves the count alone: no atomic add.
                    usedBytes.add(delta);
                }
                yield KvResult.ok();
            }
            case DELETE -> {
                int previous = store.removeReturningPreviousSize(c.key());
                if (previous < 0) {
                    yield KvResult.notFound();
                }
                usedBytes.add(-(c.key().length + previous));
                yield KvResult.ok();
            }
            case MULTI_PUT -> {
                for (int i = 0; i < c.keyCount(); i++) {
                    int previous = store.putReturningPreviousSize(c.key(i), c.value(i));
                    usedBytes.add(previous < 0 ? c.key(i).length + c.value(i).length
                            : c.value(i).length - previous);
                }
                yield KvResult.ok();
            }
            // Sessions are opened by the replica's session table on the delivery thread, never here.
            case OPEN_SESSION -> KvResult.of(KvStatus.REJECTED,
                    "OPEN_SESSION is answered by the replica's session table, not by the store");
        };
    }
}
