package io.psmr.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.psmr.scheduler.testing.Conditions;
import io.psmr.scheduler.testing.KeyCommand;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@link WakePolicy}: no lost wake-ups (a free batch with every worker parked is always run), the
 * stated latency bound of {@link WakePolicy#WHEN_OUTNUMBERED}, and the same order under a seeded
 * random schedule. Workers loop as {@link ParallelScheduler}'s do: {@code take}, run,
 * {@code removeAndTake}. No sleeps: every wait is on a condition with a timeout.
 */
class WakePolicyTest {

    /** Base seed; re-run a failure with {@code -Dpsmr.seed=<seed>}. */
    private static final long SEED = Long.getLong("psmr.seed", 0x3A4E_0F1DL);
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ConflictDetection DET = ConflictDetection.keysHashed();

    private static byte[] key(int k) {
        return ("key" + k).getBytes(StandardCharsets.US_ASCII);
    }

    private static Batch<KeyCommand> batch(long instance, int... keys) {
        List<KeyCommand> cmds = new ArrayList<>();
        for (int k : keys) {
            cmds.add(new KeyCommand(new byte[][] {key(k)}, new boolean[] {true}));
        }
        return Batch.of(instance, cmds, DET);
    }

    /** Worker threads that run each taken batch through {@code run}, as ParallelScheduler's workers do. */
    private static final class Workers {
        final List<Thread> threads = new ArrayList<>();
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        /** Threads that hold a taken batch, by thread. */
        final Map<Thread, Long> running = new ConcurrentHashMap<>();

        Workers(DependencyGraph<KeyCommand> graph, int n, Consumer<Batch<KeyCommand>> run) {
            for (int w = 0; w < n; w++) {
                Thread t = new Thread(() -> {
                    try {
                        PendingBatch<KeyCommand> p = graph.take();
                        while (p != null) {
                            running.put(Thread.currentThread(), p.batch().instance());
                            run.accept(p.batch());
                            running.remove(Thread.currentThread());
                            p = graph.removeAndTake(p);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Throwable e) {
                        failures.add(e);
                        graph.abort();
                    }
                }, "wake-test-worker-" + w);
                t.setDaemon(true);
                threads.add(t);
            }
            threads.forEach(Thread::start);
        }

        /** Waits until every worker that holds no batch is parked in the graph. */
        void awaitIdleParked(int idle) {
            Conditions.await(idle + " idle workers parked", TIMEOUT, () -> {
                int parked = 0;
                for (Thread t : threads) {
                    if (!running.containsKey(t) && t.getState() == Thread.State.WAITING) {
                        parked++;
                    }
                }
                return parked == idle;
            });
        }

        void stop(DependencyGraph<KeyCommand> graph) throws InterruptedException {
            graph.close();
            for (Thread t : threads) {
                t.join(TIMEOUT.toMillis());
                assertFalse(t.isAlive(), t.getName() + " did not stop");
            }
            assertTrue(failures.isEmpty(), failures.toString());
        }
    }

    @Test
    void aFreeBatchIsRunWhenEveryWorkerIsParked() throws InterruptedException {
        for (WakePolicy policy : WakePolicy.values()) {
            for (GraphKind kind : GraphKind.values()) {
                for (int n = 1; n <= 3; n++) {
                    DependencyGraph<KeyCommand> g = kind.create(DET, 8, 0, policy);
                    Workers workers = new Workers(g, n, b -> { });
                    for (long i = 1; i <= 20; i++) {
                        workers.awaitIdleParked(n);
                        g.insert(batch(i, (int) i));
                        assertTrue(g.awaitEmpty(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS),
                                policy + " " + kind + " " + n + " workers: batch " + i + " was not run");
                    }
                    workers.stop(g);
                }
            }
        }
    }

    /**
     * One worker runs a long batch, the other is parked: a free batch is run once the long batch
     * ends, with no further delivery, or, before that, at the {@link WakePolicy#STALE_INSERTS}th
     * insert during which it waited.
     */
    @Test
    void aFreeBatchBehindALongOneWaitsAtMostForItOrForTheStaleBound() throws InterruptedException {
        for (boolean byInserts : new boolean[] {false, true}) {
            for (GraphKind kind : GraphKind.values()) {
                DependencyGraph<KeyCommand> g = kind.create(DET, 16, 0, WakePolicy.WHEN_OUTNUMBERED);
                CountDownLatch release = new CountDownLatch(1);
                CountDownLatch freeRan = new CountDownLatch(1);
                Workers workers = new Workers(g, 2, b -> {
                    try {
                        if (b.instance() == 1) {
                            assertTrue(release.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "never released");
                        } else if (b.instance() == 2) {
                            freeRan.countDown();
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                workers.awaitIdleParked(2);
                g.insert(batch(1, 1)); // the long batch
                Conditions.await("the long batch runs", TIMEOUT, () -> workers.running.containsValue(1L));
                workers.awaitIdleParked(1);
                g.insert(batch(2, 2)); // free, and no more free batches than busy workers
                String ctx = kind + (byInserts ? ", woken by inserts" : ", woken by the long batch's end");
                if (byInserts) {
                    // Batches behind the long one: none free, but the free batch has now waited
                    // through STALE_INSERTS inserts (its own included).
                    for (int i = 1; i < WakePolicy.STALE_INSERTS; i++) {
                        g.insert(batch(2 + i, 1));
                    }
                    assertTrue(freeRan.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS),
                            "free batch not run after " + WakePolicy.STALE_INSERTS + " inserts; " + ctx);
                    assertEquals(1L, workers.running.values().stream().filter(v -> v == 1L).count(),
                            "the long batch still runs; " + ctx);
                    release.countDown();
                } else {
                    release.countDown();
                    assertTrue(freeRan.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS),
                            "free batch not run after the long batch ended; " + ctx);
                }
                assertTrue(g.awaitEmpty(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "graph not drained; " + ctx);
                workers.stop(g);
            }
        }
    }

    /**
     * A seeded random schedule: random batches, random work per batch, and pauses in delivery
     * that let every worker park. Every batch runs, none before a conflicting earlier one, and the
     * graph drains at each pause (a lost wake-up would leave it stuck).
     */
    @Test
    void aRandomScheduleLosesNoWakeUpAndKeepsTheOrder() throws InterruptedException {
        Random seeds = new Random(SEED);
        for (int round = 0; round < 12; round++) {
            long seed = seeds.nextLong();
            Random rnd = new Random(seed);
            WakePolicy policy = WakePolicy.values()[round % 2];
            GraphKind kind = GraphKind.values()[rnd.nextInt(GraphKind.values().length)];
            int workersN = 1 + rnd.nextInt(4);
            int capacity = 1 + rnd.nextInt(16);
            int batches = 600;
            String ctx = " [" + policy + ", " + kind + ", " + workersN + " workers, capacity " + capacity
                    + ", psmr.seed=" + SEED + ", round " + round + " seed " + seed + "]";
            List<Batch<KeyCommand>> all = new ArrayList<>();
            int[] work = new int[batches];
            for (int i = 0; i < batches; i++) {
                int n = 1 + rnd.nextInt(3);
                int[] keys = new int[n];
                for (int c = 0; c < n; c++) {
                    keys[c] = rnd.nextInt(10);
                }
                all.add(batch(i, keys));
                work[i] = rnd.nextInt(8) == 0 ? 20_000 + rnd.nextInt(200_000) : rnd.nextInt(500);
            }
            DependencyGraph<KeyCommand> g = kind.create(DET, capacity, 0, policy);
            AtomicIntegerArray state = new AtomicIntegerArray(batches);
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            Workers workers = new Workers(g, workersN, b -> {
                int i = (int) b.instance();
                if (!state.compareAndSet(i, 0, 1)) {
                    violations.add("batch " + i + " run twice");
                }
                for (int j = 0; j < i; j++) {
                    if (state.get(j) != 2 && all.get(j).summary().conflictsWith(b.summary())) {
                        violations.add("batch " + i + " ran before conflicting batch " + j);
                    }
                }
                long x = 0;
                for (int k = 0; k < work[i]; k++) {
                    x += k * 31L ^ x;
                }
                if (x == 42) {
                    violations.add("unreachable");
                }
                state.set(i, 2);
            });
            try {
                for (int i = 0; i < batches; i++) {
                    g.insert(all.get(i));
                    if (rnd.nextInt(40) == 0) {
                        // A pause: everything must drain, then every worker parks.
                        if (!g.awaitEmpty(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                            fail("graph stuck at size " + g.size() + " after batch " + i + ctx);
                        }
                        workers.awaitIdleParked(workersN);
                    }
                }
                if (!g.awaitEmpty(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    fail("graph stuck at size " + g.size() + " at the end" + ctx);
                }
                workers.stop(g);
            } finally {
                // Wakes and ends the workers if a check failed; a no-op once they stopped.
                g.abort();
            }
            assertTrue(violations.isEmpty(), violations.stream().limit(5).toList() + ctx);
            for (int i = 0; i < batches; i++) {
                assertEquals(2, state.get(i), "batch " + i + " never ran" + ctx);
            }
        }
    }
}
