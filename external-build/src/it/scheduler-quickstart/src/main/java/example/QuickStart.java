package example;

import io.psmr.scheduler.*;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.*;

/** The quick start of psmr's docs/integration.md: counters, incremented by totally ordered batches. */
public final class QuickStart {
    /** One command: add {@code amount} to counter {@code name}. Its footprint is that one key, written. */
    record Add(String name, long amount) implements Command {
        public int keyCount() { return 1; }
        public byte[] key(int i) { return name.getBytes(StandardCharsets.UTF_8); }
        public boolean writes(int i) { return true; }
    }

    public static Map<String, Long> run(List<List<Add>> log) throws InterruptedException {
        Map<String, Long> counters = new ConcurrentHashMap<>();
        ConflictDetection detection = ConflictDetection.bitmap(1 << 16);   // every replica uses the same
        Service<Add, Long> service = add -> counters.merge(add.name(), add.amount(), Long::sum);
        try (Scheduler<Add, Long> scheduler = Scheduler.builder(service).detection(detection).workers(4).start()) {
            long instance = 0;
            for (List<Add> entry : log) {                                   // in log order, one thread
                scheduler.deliver(Batch.of(++instance, entry, detection));
            }
            scheduler.awaitIdle(10, TimeUnit.SECONDS);
        }
        return counters;
    }
}
