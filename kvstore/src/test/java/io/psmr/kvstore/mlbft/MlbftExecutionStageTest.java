package io.psmr.kvstore.mlbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.mlbft.PartitionQueuesDeterminismTest.Ordered;
import io.psmr.kvstore.mlbft.PartitionQueuesDeterminismTest.Orders;
import io.psmr.kvstore.mlbft.PartitionQueuesDeterminismTest.Outcome;
import io.psmr.kvstore.mlbft.PartitionQueuesDeterminismTest.RealStage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link MlbftExecutionStage}, with its threads: one delivery thread per instance and one worker per partition, as an
 * {@link MlbftReplica} runs them, give what the pure {@link PartitionQueues} give under any interleaving; a delivery
 * thread waits while its queue is full unless a deadlock waits on it; a deadlock past the bound, or a runner that
 * throws, stops the stage. Seeded: re-run a failure with {@code -Dpsmr.seed=S}.
 */
class MlbftExecutionStageTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void threadsRunWhatThePureQueuesRun() throws Exception {
        long seed = Long.getLong("psmr.mlbft.seed", Long.getLong("psmr.seed", System.nanoTime()));
        Random random = new Random(seed);
        int compared = 0;
        for (int c = 0; c < 12; c++) {
            Orders orders = PartitionQueuesDeterminismTest.orders(random);
            int capacity = random.nextInt(3) == 0 ? 4 + random.nextInt(8) : 32 + random.nextInt(200);
            String context = "case " + c + " (" + orders.partitions() + " partitions, " + orders.total() + " copies,"
                    + " capacity " + capacity + "); seed " + seed + ", re-run with -Dpsmr.seed=" + seed;
            Outcome reference = PartitionQueuesDeterminismTest.replay(orders,
                    () -> new RealStage(orders.partitions(), capacity), new Random(random.nextLong()), context);
            for (int run = 0; run < 3; run++) {
                Outcome threaded = runThreaded(orders, capacity, new Random(random.nextLong()), context);
                assertEquals(reference.toString(), threaded.toString(), "run " + run + " with threads; " + context);
            }
            compared += reference.stopped() ? 0 : 1;
        }
        assertTrue(compared >= 6, compared + " of 12 cases ran to the end; seed " + seed);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aDeliveryWaitsWhileItsQueueIsFullUnlessADeadlockAwaitsIt() throws Exception {
        List<Long> ran = Collections.synchronizedList(new ArrayList<>());
        MlbftExecutionStage<String> stage = new MlbftExecutionStage<>(2, 1, r -> ran.add(r.id), "test-stage-");
        try {
            int[] both = {0, 1};
            // Partition 0 holds X, which waits for the empty partition 1: at capacity 1, the delivery of Y to partition
            // 0 waits.
            stage.deliver(0, key(1), 1, both, 0, "X");
            Thread blocked = new Thread(() -> {
                try {
                    stage.deliver(0, key(2), 2, both, 0, "Y");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            blocked.start();
            blocked.join(200);
            assertTrue(blocked.isAlive(), "partition 0 is full: Y waits");
            // Partition 1 orders Y then X. With Y there, X and Y head their queues waiting for each other; X, the
            // chosen one, has not arrived in partition 1, so partition 1 is awaited, not partition 0.
            stage.deliver(1, key(2), 1, both, 0, "Y");
            blocked.join(200);
            assertTrue(blocked.isAlive(), "partition 0 still holds X, which waits for Y in partition 1");
            // X arrives in partition 1, past its capacity: X moves ahead of Y there and runs; partition 0 drains, Y
            // comes in and runs.
            Thread second = new Thread(() -> {
                try {
                    stage.deliver(1, key(1), 2, both, 0, "X");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            second.start();
            second.join(10_000);
            blocked.join(10_000);
            assertFalse(second.isAlive());
            assertFalse(blocked.isAlive());
            assertTrue(stage.awaitIdle(10, TimeUnit.SECONDS));
            assertEquals(List.of(1L, 2L), ran);
            assertEquals(1, stage.stats(0, 0, 0).deadlocks());
        } finally {
            stage.close();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aDeadlockPastTheBoundStopsTheStage() throws Exception {
        MlbftExecutionStage<String> stage = new MlbftExecutionStage<>(2, 1, r -> { }, "test-stage-");
        try {
            int[] both = {0, 1};
            // X heads partition 0 and Y partition 1, waiting for each other; X, the chosen one, has not arrived in
            // partition 1, whose delivery thread goes on past capacity 1 without waiting, up to 4.
            stage.deliver(0, key(1), 1, both, 0, "X");
            stage.deliver(1, key(2), 1, both, 0, "Y");
            for (int i = 0; i < 3; i++) {
                stage.deliver(1, key(10 + i), 2 + i, new int[] {1}, 1, "s" + i);
            }
            assertEquals(5, stage.stats(0, 0, 0).queued(), "X in partition 0, Y and three more in partition 1");
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> stage.deliver(1, key(20), 5, new int[] {1}, 1, "s3"));
            assertEquals("partition 1 holds 4 requests, 4 at most, and a deadlock still waits for a request behind them",
                    e.getMessage());
            assertEquals(e, stage.failure().orElseThrow(), "the stage stopped");
            assertFalse(stage.awaitIdle(1, TimeUnit.SECONDS));
            IllegalStateException after = assertThrows(IllegalStateException.class,
                    () -> stage.deliver(0, key(2), 2, both, 0, "Y"));
            assertTrue(after.getMessage().startsWith("the MLBFT execution stage stopped"), after.getMessage());
        } finally {
            stage.close();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aRunnerThatThrowsStopsTheStage() throws Exception {
        MlbftExecutionStage<String> stage = new MlbftExecutionStage<>(2, 4, r -> {
            throw new IllegalStateException("boom on " + r.payload);
        }, "test-stage-");
        try {
            stage.deliver(0, key(1), 1, new int[] {0}, 0, "s");
            assertFalse(stage.awaitIdle(10, TimeUnit.SECONDS), "the stage stopped");
            assertEquals("boom on s", stage.failure().orElseThrow().getMessage());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> stage.deliver(1, key(2), 1, new int[] {1}, 1, "t"));
            assertTrue(e.getMessage().startsWith("the MLBFT execution stage stopped"), e.getMessage());
        } finally {
            stage.close();
        }
    }

    /** The orders through a stage with threads: one delivery thread per partition, runners that yield at random. */
    private static Outcome runThreaded(Orders orders, int capacity, Random random, String context) throws Exception {
        int n = orders.partitions();
        List<List<Long>> runs = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            runs.add(Collections.synchronizedList(new ArrayList<>()));
        }
        long runnerSeed = random.nextLong();
        MlbftExecutionStage<Ordered> stage = new MlbftExecutionStage<>(n, capacity, r -> {
            // A request runs while it heads all its queues: its partitions' lists take it in their queues' order.
            for (int p : r.partitions) {
                runs.get(p).add(r.id);
            }
            if (((r.id ^ runnerSeed) & 3) == 0) {
                Thread.yield();
            }
        }, "test-mlbft-worker-");
        AtomicReference<Throwable> stopped = new AtomicReference<>();
        List<Thread> deliveries = new ArrayList<>();
        try {
            for (int p = 0; p < n; p++) {
                List<Ordered> mine = orders.perPartition().get(p);
                if (mine.isEmpty()) {
                    continue;
                }
                int partition = p;
                boolean yields = random.nextBoolean();
                Thread t = new Thread(() -> {
                    try {
                        for (int i = 0; i < mine.size(); i++) {
                            Ordered o = mine.get(i);
                            stage.deliver(partition, key(o.id()), i + 1, o.partitions(), o.exec(), o);
                            if (yields) {
                                Thread.yield();
                            }
                        }
                    } catch (IllegalStateException e) {
                        stopped.compareAndSet(null, e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "test-mlbft-delivery-" + p);
                deliveries.add(t);
            }
            deliveries.forEach(Thread::start);
            for (Thread t : deliveries) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(t.isAlive(), t.getName() + " is stuck; " + context);
            }
            if (stopped.get() != null) {
                assertTrue(stage.failure().isPresent(), context);
                assertInstanceOf(IllegalStateException.class, stage.failure().get(), context);
                assertTrue(stage.failure().get().getMessage().endsWith("and a deadlock still waits for a request behind"
                        + " them"), stage.failure().get().getMessage());
                return Outcome.stop();
            }
            assertTrue(stage.awaitIdle(60, TimeUnit.SECONDS), "the stage ran everything; " + context);
            MlbftStats s = stage.stats(0, 0, 0);
            List<List<Long>> copy = new ArrayList<>();
            for (List<Long> r : runs) {
                copy.add(List.copyOf(r));
            }
            return new Outcome(copy, s.deadlocks(), s.resolutions(), false);
        } finally {
            stage.close();
        }
    }

    private static PartitionQueues.Key key(long id) {
        return new PartitionQueues.Key(id, new byte[0]);
    }
}
