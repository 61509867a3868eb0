package io.psmr.scheduler.testing;

import io.psmr.scheduler.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A key-value service for scheduler tests that fails loudly when two conflicting commands overlap.
 *
 * <p>Each key holds a value; a write replaces it with a hash of the old value and the command id,
 * a read returns it. A command's result folds every value it saw, so any reordering of conflicting
 * commands changes some result or the final state. Per key it logs the ids of the writers in
 * execution order.
 *
 * <p>Overlap detection: each key has an access state (-1 written, n > 0 read by n commands). A
 * command that finds a conflicting access in progress records a violation and throws. In exclusive
 * mode every access counts as a write, for the modes in which any shared key is a conflict.
 */
public final class CheckingService implements Service<TestCommand, Long> {

    private final boolean exclusive;
    private final int spinPerKey;
    private final ConcurrentHashMap<Long, Long> values = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, List<Long>> writeLog = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, AtomicInteger> access = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    /**
     * @param exclusive  whether a shared key conflicts even between readers
     * @param spinPerKey busy iterations per key, to widen the window in which overlaps show
     */
    public CheckingService(boolean exclusive, int spinPerKey) {
        this.exclusive = exclusive;
        this.spinPerKey = spinPerKey;
    }

    @Override
    public Long execute(TestCommand c) {
        int n = c.keyCount();
        for (int i = 0; i < n; i++) {
            enter(c, i);
        }
        try {
            long result = c.id();
            for (int i = 0; i < n; i++) {
                long key = c.longKey(i);
                long old = values.getOrDefault(key, 0L);
                spin(key);
                if (c.writes(i)) {
                    values.put(key, mix(old, c.id()));
                    writeLog.computeIfAbsent(key, k -> new ArrayList<>()).add(c.id());
                }
                result = mix(result, old);
            }
            return result;
        } finally {
            for (int i = 0; i < n; i++) {
                leave(c, i);
            }
        }
    }

    private void enter(TestCommand c, int i) {
        AtomicInteger state = access.computeIfAbsent(c.longKey(i), k -> new AtomicInteger());
        if (exclusive || c.writes(i)) {
            if (!state.compareAndSet(0, -1)) {
                fail(c, i, state.get());
            }
        } else {
            int s;
            do {
                s = state.get();
                if (s < 0) {
                    fail(c, i, s);
                }
            } while (!state.compareAndSet(s, s + 1));
        }
    }

    private void leave(TestCommand c, int i) {
        AtomicInteger state = access.get(c.longKey(i));
        if (exclusive || c.writes(i)) {
            state.set(0);
        } else {
            state.decrementAndGet();
        }
    }

    private void fail(TestCommand c, int i, int state) {
        String v = c + " overlapped a conflicting command on key " + c.longKey(i) + " (access state " + state + ")";
        violations.add(v);
        throw new IllegalStateException(v);
    }

    private void spin(long key) {
        long x = key;
        for (int s = 0; s < spinPerKey; s++) {
            x = mix(x, s);
        }
        if (x == 42) {
            Thread.onSpinWait();
        }
    }

    private static long mix(long a, long b) {
        long h = a * 0x9E3779B97F4A7C15L + b;
        h ^= h >>> 31;
        return h * 0xBF58476D1CE4E5B9L;
    }

    /** Overlaps seen so far. */
    public List<String> violations() {
        return List.copyOf(violations);
    }

    /** The final state, sorted by key. */
    public Map<Long, Long> state() {
        return new TreeMap<>(values);
    }

    /** Per key, the ids of the commands that wrote it, in execution order. */
    public Map<Long, List<Long>> writeOrder() {
        return new TreeMap<>(writeLog);
    }
}
