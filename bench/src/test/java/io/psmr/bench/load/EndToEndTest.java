package io.psmr.bench.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.Replica;
import io.psmr.scheduler.SchedulerMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The whole path — closed-loop clients → proxy (batches, summaries, hot-key batches) → local
 * sequencer → 3 replicas (scheduler + Chronicle Map) → first reply → client — under 64 clients on
 * a small key space, with MULTI_PUTs and 20 % of batches writing one hot key. Checks: every
 * operation answered, equal digests, every replica's store equal, every acknowledged write visible
 * afterwards, and the recorded history linearizable per key (with the final store as a last read);
 * a corrupted copy of the same history is rejected.
 */
class EndToEndTest {

    @ParameterizedTest(name = "{0}, batch {1}, window {2}")
    @CsvSource({
        "BITMAP_INDEXED, 200, 1",
        "RW_BITMAP, 16, 2",
        "KEYS_HASHED, 64, 4",
        "CBASE, 1, 1",
        "SEQUENTIAL, 200, 1"})
    void replicasAgreeAndTheHistoryIsLinearizable(SchedulerMode mode, int batch, int window) throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        String context = mode + " batch " + batch + " window " + window + " seed " + seed;
        System.out.println("EndToEndTest " + context);
        // Bounded by operations, not time: every client does all 300; the duration is only a safety cap.
        WorkloadSpec spec = new WorkloadSpec(64, 40, 0.3, 0.15, 3, 16, Duration.ofSeconds(120), 300, seed);
        LoadOptions options = new LoadOptions(3, mode, 2, batch, window, Duration.ZERO, 20, Duration.ofSeconds(5), spec);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Map<String, String>> finalState = new AtomicReference<>();
        LoadReport report = LoadRun.run(options, history::add, cluster -> {
            List<Map<String, String>> stores = new ArrayList<>();
            for (Replica r : cluster.replicas()) {
                Map<String, String> m = new HashMap<>();
                r.store().forEach((k, v) -> m.put(text(k), text(v)));
                stores.add(m);
            }
            for (Map<String, String> m : stores) {
                assertEquals(stores.get(0), m, "replica stores differ, " + context);
            }
            finalState.set(stores.get(0));
        });

        assertTrue(report.digestsAgree(), "digests differ: " + report.digests() + ", " + context);
        assertEquals(3, report.digests().size());
        assertEquals(0, report.result().unanswered(), context);
        assertEquals(64 * 300, report.result().acknowledged(), "every client's every operation answered, " + context);
        assertEquals(report.result().acknowledged(), history.size(), context);
        assertEquals((long) Math.floor(report.proxy().batches() * 0.2), report.hotWrites(),
                "exactly 20 % of batches write the hot key, " + context);
        assertTrue(history.stream().anyMatch(o -> o.op() == KvOp.MULTI_PUT && o.status() == KvStatus.OK), context);

        Map<String, String> store = new HashMap<>(finalState.get());
        assertTrue(report.hotWrites() == 0 || store.containsKey("hot"), context);
        store.remove("hot"); // the proxy's hot-key writes are not client operations
        int checked = checkLastWritesVisible(history, store, context);
        assertTrue(checked > 0, "no key had a last write to check, " + context);

        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, store);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(40, v.keys(), context);

        // The checker can be seen to fail on the same history with one read corrupted.
        List<OpRecord> corrupted = new ArrayList<>(history);
        for (int i = 0; i < corrupted.size(); i++) {
            OpRecord o = corrupted.get(i);
            if (o.op() == KvOp.READ && o.status() == KvStatus.OK) {
                corrupted.set(i, new OpRecord(o.client(), o.clientId(), o.op(), o.keys(), o.values(), o.invokeNs(),
                        o.completeNs(), o.status(), "never written".getBytes(StandardCharsets.ISO_8859_1), null));
                break;
            }
        }
        assertFalse(LinearizabilityChecker.check(corrupted, store).linearizable(), context);
    }

    /**
     * For each key whose last acknowledged write began after every other write of that key had
     * completed, the final store holds exactly what that write left (absent after a DELETE).
     *
     * @return how many keys were checked this way
     */
    static int checkLastWritesVisible(List<OpRecord> history, Map<String, String> store, String context) {
        record Write(long invoke, long complete, String value) {
        }
        Map<String, List<Write>> writes = new HashMap<>();
        for (OpRecord o : history) {
            if (o.op() == KvOp.READ || o.status() != KvStatus.OK) {
                continue;
            }
            for (int i = 0; i < o.keys().length; i++) {
                String value = o.op() == KvOp.DELETE ? null : text(o.values()[i]);
                writes.computeIfAbsent(text(o.keys()[i]), k -> new ArrayList<>())
                        .add(new Write(o.invokeNs(), o.completeNs(), value));
            }
        }
        int checked = 0;
        for (Map.Entry<String, List<Write>> e : writes.entrySet()) {
            Write last = null;
            for (Write w : e.getValue()) {
                if (last == null || w.invoke() > last.invoke()) {
                    last = w;
                }
            }
            boolean alone = true;
            for (Write w : e.getValue()) {
                if (w != last && w.complete() >= last.invoke()) {
                    alone = false;
                }
            }
            if (alone) {
                checked++;
                if (last.value() == null) {
                    assertNull(store.get(e.getKey()), "deleted key " + e.getKey() + " is present, " + context);
                } else {
                    assertArrayEquals(last.value().getBytes(StandardCharsets.ISO_8859_1),
                            store.getOrDefault(e.getKey(), "").getBytes(StandardCharsets.ISO_8859_1),
                            "acknowledged last write of " + e.getKey() + " is not visible, " + context);
                }
            }
        }
        return checked;
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
