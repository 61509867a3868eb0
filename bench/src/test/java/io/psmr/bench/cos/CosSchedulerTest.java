package io.psmr.bench.cos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.CommandError;
import io.psmr.scheduler.DeterministicFailure;
import io.psmr.scheduler.ResultSink;
import io.psmr.scheduler.Service;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Both COS variants under {@link CosScheduler}: order, equivalence with sequential execution, bounds, config, fail-stop. */
class CosSchedulerTest {

    private static final long SEED = Long.getLong("psmr.seed", 42L);

    /** A command over named keys; {@code writes[i]} says whether key i is written. */
    record TestCommand(int id, String[] keys, boolean[] writes) implements Command {
        static TestCommand write(int id, String key) {
            return new TestCommand(id, new String[] {key}, new boolean[] {true});
        }

        @Override
        public int keyCount() {
            return keys.length;
        }

        @Override
        public byte[] key(int i) {
            return keys[i].getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public boolean writes(int i) {
            return writes[i];
        }

        @Override
        public String toString() {
            return "cmd" + id + Arrays.toString(keys) + Arrays.toString(writes);
        }
    }

    /** Per-key counters: a command returns the values it saw; each written key is incremented. */
    static final class Counters implements Service<TestCommand, String> {
        final Map<String, Long> values;

        Counters(Map<String, Long> values) {
            this.values = values;
        }

        @Override
        public String execute(TestCommand c) {
            StringBuilder seen = new StringBuilder();
            for (int i = 0; i < c.keyCount(); i++) {
                String k = c.keys()[i];
                long v = values.getOrDefault(k, 0L);
                seen.append(k).append('=').append(v).append(' ');
                if (c.writes()[i]) {
                    values.put(k, v + 1);
                }
            }
            return seen.toString();
        }
    }

    /** Keeps each result by instance; fails the test on errors. */
    static final class Results implements ResultSink<TestCommand, String> {
        final Map<Long, String> byInstance = new ConcurrentHashMap<>();
        final AtomicLong completed = new AtomicLong();
        final AtomicReference<String> problem = new AtomicReference<>();

        @Override
        public void onResult(long instance, int index, TestCommand command, String result) {
            if (index != 0 || byInstance.put(instance, result) != null) {
                problem.compareAndSet(null, "bad or repeated report " + instance + "/" + index);
            }
        }

        @Override
        public void onError(long instance, int index, TestCommand command, CommandError error) {
            problem.compareAndSet(null, "error on " + instance + ": " + error);
        }

        @Override
        public void onBatchComplete(Batch<TestCommand> batch) {
            if (batch.size() != 1) {
                problem.compareAndSet(null, "batch of " + batch.size());
            }
            completed.incrementAndGet();
        }
    }

    @ParameterizedTest
    @EnumSource(CosVariant.class)
    void writesOfOneKeyExecuteInDeliveryOrder(CosVariant variant) throws InterruptedException {
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        Service<TestCommand, String> service = c -> {
            if (c.id() % 3 == 0) {
                // Uneven work, so that a scheduler without the dependency would reorder.
                long until = System.nanoTime() + 20_000;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
            order.add(c.id());
            return "";
        };
        Results sink = new Results();
        List<Integer> expected = new ArrayList<>();
        try (CosScheduler<TestCommand, String> s = new CosScheduler<>(variant, service, sink, 4, 8, "cos-order-")) {
            for (int i = 1; i <= 2000; i++) {
                assertEquals(i, s.deliver(TestCommand.write(i, "shared")));
                expected.add(i);
            }
        }
        assertEquals(expected, order);
        assertEquals(2000, sink.completed.get());
        assertEquals(null, sink.problem.get());
    }

    @ParameterizedTest
    @EnumSource(CosVariant.class)
    void randomCommandsGiveTheResultsAndStateOfSequentialExecution(CosVariant variant) throws InterruptedException {
        for (int workers = 1; workers <= 4; workers++) {
            long seed = SEED + 31L * workers + variant.ordinal();
            Random rnd = new Random(seed);
            int maxSize = 1 + rnd.nextInt(16);
            String[] keyNames = {"a", "b", "c", "d", "e"};
            List<TestCommand> commands = new ArrayList<>();
            for (int i = 1; i <= 3000; i++) {
                int n = rnd.nextInt(4); // 0 to 3 keys; a key may repeat
                String[] keys = new String[n];
                boolean[] writes = new boolean[n];
                for (int k = 0; k < n; k++) {
                    keys[k] = keyNames[rnd.nextInt(keyNames.length)];
                    writes[k] = rnd.nextInt(3) == 0;
                }
                commands.add(new TestCommand(i, keys, writes));
            }
            Counters sequential = new Counters(new HashMap<>());
            Map<Long, String> expected = new HashMap<>();
            for (int i = 0; i < commands.size(); i++) {
                expected.put(i + 1L, sequential.execute(commands.get(i)));
            }
            Counters parallel = new Counters(new ConcurrentHashMap<>());
            Results sink = new Results();
            try (CosScheduler<TestCommand, String> s = new CosScheduler<>(variant, parallel, sink, workers, maxSize,
                    "cos-stress-")) {
                for (TestCommand c : commands) {
                    s.deliver(c);
                }
            }
            String context = variant.cliName() + ", " + workers + " workers, maxSize " + maxSize
                    + "; rerun with -Dpsmr.seed=" + SEED + " (cell seed " + seed + ")";
            assertEquals(null, sink.problem.get(), context);
            assertEquals(commands.size(), sink.completed.get(), context);
            assertEquals(sequential.values, new HashMap<>(parallel.values), "final state: " + context);
            for (long i = 1; i <= commands.size(); i++) {
                if (!expected.get(i).equals(sink.byInstance.get(i))) {
                    fail("command " + i + " " + commands.get((int) i - 1) + " saw '" + sink.byInstance.get(i)
                            + "', sequential saw '" + expected.get(i) + "': " + context);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CosVariant.class)
    void deliverBlocksWhileTheGraphIsFullAndReturnsOnceOneFinishes(CosVariant variant) throws Exception {
        int maxSize = 3;
        Semaphore mayFinish = new Semaphore(0);
        Service<TestCommand, String> service = c -> {
            mayFinish.acquire();
            return "";
        };
        Results sink = new Results();
        try (CosScheduler<TestCommand, String> s = new CosScheduler<>(variant, service, sink, 2, maxSize, "cos-bound-")) {
            for (int i = 1; i <= maxSize; i++) {
                s.deliver(TestCommand.write(i, "k" + i));
            }
            AtomicLong delivered = new AtomicLong();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread extra = new Thread(() -> {
                try {
                    delivered.set(s.deliver(TestCommand.write(maxSize + 1, "k" + (maxSize + 1))));
                } catch (Throwable e) {
                    thrown.set(e);
                }
            }, "cos-bound-delivery");
            extra.start();
            awaitState(extra, Thread.State.WAITING);
            assertTrue(extra.isAlive(), "the extra deliver must block while the graph is full");
            assertEquals(0, delivered.get());
            assertEquals(maxSize, s.graphSize());
            mayFinish.release(); // one command finishes and leaves the graph
            extra.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(extra.isAlive(), "deliver must return once a command finishes");
            assertEquals(null, thrown.get());
            assertEquals(maxSize + 1, delivered.get());
            mayFinish.release(maxSize);
        }
        assertEquals(maxSize + 1, sink.completed.get());
    }

    private static void awaitState(Thread t, Thread.State state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != state) {
            if (System.nanoTime() > deadline) {
                fail(t.getName() + " is " + t.getState() + ", expected " + state);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @ParameterizedTest
    @EnumSource(CosVariant.class)
    void badConfigurationIsRefusedWithAMessage(CosVariant variant) {
        Service<TestCommand, String> service = c -> "";
        IllegalArgumentException w = assertThrows(IllegalArgumentException.class,
                () -> new CosScheduler<>(variant, service, new Results(), 0, 4, "x-"));
        assertEquals("COS workers must be at least 1, got 0", w.getMessage());
        IllegalArgumentException m = assertThrows(IllegalArgumentException.class,
                () -> new CosScheduler<>(variant, service, new Results(), 2, 0, "x-"));
        assertEquals("COS maxSize must be at least 1, got 0", m.getMessage());
        IllegalArgumentException g = assertThrows(IllegalArgumentException.class, () -> variant.newGraph(-1));
        assertEquals("COS maxSize must be at least 1, got -1", g.getMessage());
    }

    @ParameterizedTest
    @EnumSource(CosVariant.class)
    void anUndeclaredFailureStopsTheSchedulerAndNothingDependentRuns(CosVariant variant) throws InterruptedException {
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        Service<TestCommand, String> service = c -> {
            if (c.id() == 5) {
                throw new java.io.IOException("disk gone");
            }
            if (c.id() == 6) {
                throw new DeterministicFailure("never reached");
            }
            ran.add(c.id());
            return "";
        };
        Results sink = new Results();
        CosScheduler<TestCommand, String> s = new CosScheduler<>(variant, service, sink, 3, 2, "cos-fail-");
        IllegalStateException refused = null;
        for (int i = 1; i <= 1000 && refused == null; i++) {
            try {
                s.deliver(TestCommand.write(i, "shared"));
            } catch (IllegalStateException e) {
                refused = e;
            }
        }
        s.close();
        assertTrue(refused != null, "deliver must refuse after the failure");
        assertTrue(refused.getMessage().startsWith("COS scheduler failed and stopped: java.lang.IllegalStateException: "
                + "command 5 threw java.io.IOException: disk gone"), refused.getMessage());
        assertTrue(s.failure().isPresent());
        assertEquals(List.of(1, 2, 3, 4), ran);
        assertEquals(4, sink.completed.get());
    }

    @ParameterizedTest
    @EnumSource(CosVariant.class)
    void namesRoundTripAndUnknownNamesAreListed(CosVariant variant) {
        assertEquals(variant, CosVariant.fromCliName(variant.cliName()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CosVariant.fromCliName("cos"));
        assertEquals("unknown COS variant 'cos'; variants: cos-coarse, cos-lockfree", e.getMessage());
    }
}
