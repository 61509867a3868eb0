package example;

import io.psmr.scheduler.*;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.*;

/** The second worked example of psmr's docs/integration.md: psmr behind a stack with a log of its own. */
public final class CounterReplica implements AutoCloseable {
    /** Adds {@code amount} to counter {@code name}; its result is the counter's new value. */
    public record Add(String name, long amount) implements Command {
        public int keyCount() { return 1; }
        public byte[] key(int i) { return name.getBytes(StandardCharsets.UTF_8); }
        public boolean writes(int i) { return true; }
    }
    /** A committed log entry; one without commands (a configuration change, say) has no batch. */
    public record Entry(long index, List<Add> commands) {}
    /** The counters as of the applied index {@code index}: every entry up to it, none after. */
    public record Snapshot(long index, Map<String, Long> counters) {}

    static final ConflictDetection DETECTION = ConflictDetection.bitmap(1 << 16);  // every replica the same
    private final Map<String, Long> counters = new ConcurrentHashMap<>();
    private final Map<Long, Long[]> results = new ConcurrentHashMap<>();            // entry -> each command's result
    private final AppliedIndex applied = new AppliedIndex();
    private final Scheduler<Add, Long> scheduler;

    /** Starts from {@code snapshot}; {@code new Snapshot(0, Map.of())} before the log's first entry, at index 1. */
    public CounterReplica(Snapshot snapshot) {
        counters.putAll(snapshot.counters());
        applied.reset(0, snapshot.index());                 // register refuses the entries the snapshot holds
        Service<Add, Long> service = add -> counters.merge(add.name(), add.amount(), Long::sum);
        scheduler = Scheduler.builder(service).detection(DETECTION).workers(4).resultSink(new ResultSink<>() {
            public void onResult(long entry, int i, Add add, Long value) { results.get(entry)[i] = value; }
            public void onError(long entry, int i, Add add, CommandError error) { }   // result left null
            public void onBatchComplete(Batch<Add> batch) { applied.complete(batch.instance()); }
        }).start();
    }

    /** Executes the next committed entry: on the stack's apply thread, in log order. */
    public void apply(Entry entry) throws InterruptedException {
        if (!applied.register(entry.index())) {
            return;                                          // the snapshot holds it already
        }
        if (entry.commands().isEmpty()) {
            applied.complete(entry.index());                 // applied once the entries before it are
            return;
        }
        results.put(entry.index(), new Long[entry.commands().size()]);
        scheduler.deliver(Batch.of(entry.index(), entry.commands(), DETECTION));
    }

    /** On the apply thread, between two entries: execution pauses at the applied index meanwhile. */
    public Snapshot snapshot() throws InterruptedException {
        if (!scheduler.awaitIdle(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("entries still executing after 30 s; " + applied);
        }
        return new Snapshot(applied.index(), new TreeMap<>(counters));
    }

    /** The highest index up to which every entry has executed: what the stack may report, or compact its log to. */
    public long appliedIndex() { return applied.index(); }

    /** The results of the entry at {@code index}, in command order; null if it had no batch or is not applied. */
    public List<Long> results(long index) {
        Long[] r = results.get(index);
        return r == null || index > applied.index() ? null : Arrays.asList(r);
    }

    @Override
    public void close() { scheduler.close(); }
}
