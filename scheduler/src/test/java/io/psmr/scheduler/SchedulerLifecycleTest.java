package io.psmr.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.scheduler.testing.Conditions;
import io.psmr.scheduler.testing.RecordingSink;
import io.psmr.scheduler.testing.TestCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Liveness, back-pressure, failing commands, rejected batches, bad input and shutdown of the scheduler. */
class SchedulerLifecycleTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger SCHEDULERS = new AtomicInteger();

    static Stream<Arguments> modesAndGraphs() {
        List<Arguments> args = new ArrayList<>();
        for (ConflictMode mode : ConflictMode.values()) {
            for (GraphKind graph : GraphKind.values()) {
                args.add(Arguments.of(mode, graph));
            }
        }
        return args.stream();
    }

    private static ConflictDetection detection(ConflictMode mode) {
        return new ConflictDetection(mode, 1_024, BitmapRepresentation.ROARING);
    }

    private static Batch<TestCommand> batch(long instance, ConflictDetection d, TestCommand... commands) {
        return Batch.of(instance, List.of(commands), d);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("modesAndGraphs")
    void batchesWritingOneSharedKeyCompleteInDeliveryOrder(ConflictMode mode, GraphKind graph) throws Exception {
        ConflictDetection d = detection(mode);
        RecordingSink sink = new RecordingSink();
        AtomicLong running = new AtomicLong();
        AtomicInteger overlaps = new AtomicInteger();
        Service<TestCommand, Long> service = c -> {
            if (running.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            running.decrementAndGet();
            return c.id();
        };
        Scheduler<TestCommand, Long> s = Scheduler.builder(service).resultSink(sink).detection(d).graph(graph)
                .workers(4).maxPending(8).start();
        try {
            for (long i = 1; i <= 500; i++) {
                s.deliver(batch(i, d, TestCommand.write(i, 7), TestCommand.read(1000 + i, i)));
            }
            assertTrue(s.awaitIdle(30, TimeUnit.SECONDS));
        } finally {
            s.close();
        }
        assertEquals(LongStream.rangeClosed(1, 500).boxed().collect(Collectors.toList()), sink.completionOrder());
        assertEquals(0, overlaps.get(), "commands on the shared key overlapped");
        assertEquals(1000, sink.outcomes().size());
    }

    @Test
    void deliverBlocksWhenMaxPendingBatchesAreInTheGraph() throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(1_024);
        CountDownLatch release = new CountDownLatch(1);
        Service<TestCommand, Long> service = c -> {
            release.await();
            return c.id();
        };
        Scheduler<TestCommand, Long> s = Scheduler.builder(service).detection(d).workers(2).maxPending(2).start();
        try {
            s.deliver(batch(1, d, TestCommand.write(1, 1)));
            s.deliver(batch(2, d, TestCommand.write(2, 2)));
            Thread deliverer = new Thread(() -> {
                try {
                    s.deliver(batch(3, d, TestCommand.write(3, 3)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "test-deliverer");
            deliverer.start();
            Conditions.await("the third deliver to block", TIMEOUT,
                    () -> deliverer.getState() == Thread.State.WAITING);
            assertEquals(2, s.metrics().graph().size(), "graph holds maxPending batches");
            assertEquals(2, s.metrics().batchesDelivered(), "third batch must not be admitted yet");
            release.countDown();
            deliverer.join(TIMEOUT.toMillis());
            assertFalse(deliverer.isAlive(), "deliver must return once room frees up");
            assertTrue(s.awaitIdle(30, TimeUnit.SECONDS));
            assertEquals(3, s.metrics().batchesExecuted());
            assertTrue(s.metrics().graph().maxSize() <= 2, "graph never exceeds maxPending");
        } finally {
            release.countDown();
            s.close();
        }
    }

    @Test
    void aDeterministicFailureGetsAnErrorAndTheBatchAndWorkerGoOn() throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(1_024);
        RecordingSink sink = new RecordingSink();
        Service<TestCommand, Long> service = c -> {
            if (c.id() == 2) {
                throw new DeterministicFailure("boom on command 2");
            }
            return c.id();
        };
        Scheduler<TestCommand, Long> s = Scheduler.builder(service).resultSink(sink).detection(d).workers(1).start();
        try {
            s.deliver(batch(1, d, TestCommand.write(1, 1), TestCommand.write(2, 1), TestCommand.write(3, 1)));
            s.deliver(batch(2, d, TestCommand.write(4, 1)));
            assertTrue(s.awaitIdle(30, TimeUnit.SECONDS));
        } finally {
            s.close();
        }
        assertEquals("ok:1", sink.outcome(1, 0));
        assertEquals("FAILED:command 1 of batch 1 failed: boom on command 2", sink.outcome(1, 1));
        assertEquals("ok:3", sink.outcome(1, 2));
        assertEquals("ok:4", sink.outcome(2, 0), "the worker survives and runs the next batch");
        assertEquals(1, s.metrics().commandsFailed());
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("modesAndGraphs")
    void aSummaryThatMissesAKeyIsRejectedAndNothingRuns(ConflictMode mode, GraphKind graph) throws Exception {
        ConflictDetection d = detection(mode);
        RecordingSink sink = new RecordingSink();
        AtomicInteger executed = new AtomicInteger();
        Service<TestCommand, Long> service = c -> {
            executed.incrementAndGet();
            return c.id();
        };
        Scheduler<TestCommand, Long> s = Scheduler.builder(service).resultSink(sink).detection(d).graph(graph)
                .workers(2).start();
        try {
            // The summary describes key 5 only, but the batch also writes key 6: a faulty proxy.
            ConflictSummary lying = SummaryBuilder.summarize(d, List.of(TestCommand.write(0, 5)));
            List<TestCommand> commands = List.of(TestCommand.write(1, 5), TestCommand.write(2, 6));
            s.deliver(new Batch<>(1, commands, lying));
            s.deliver(batch(2, d, TestCommand.write(3, 6)));
            assertTrue(s.awaitIdle(30, TimeUnit.SECONDS));
        } finally {
            s.close();
        }
        String rejected = sink.outcome(1, 1);
        assertTrue(rejected.startsWith("REJECTED:batch 1 rejected: conflict summary misses"), rejected);
        assertTrue(rejected.contains("command 1"), rejected);
        assertEquals(rejected, sink.outcome(1, 0), "every command of the batch gets the same rejection");
        if (mode.usesBitmaps()) {
            int bit = KeyDigest.bitIndex(KeyDigest.digest(6L), 1_024);
            assertTrue(rejected.contains("bit " + bit + " "), rejected);
        }
        assertEquals("ok:3", sink.outcome(2, 0), "the scheduler keeps serving");
        assertEquals(1, executed.get(), "nothing of the rejected batch ran");
        assertEquals(1, s.metrics().batchesRejected());
    }

    @Test
    void badInputIsRefusedWithAMessageAndTheSchedulerStaysUsable() throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(1_024);
        RecordingSink sink = new RecordingSink();
        Scheduler<TestCommand, Long> s = Scheduler.<TestCommand, Long>builder(TestCommand::id).resultSink(sink)
                .detection(d).workers(2).start();
        try {
            s.deliver(batch(5, d, TestCommand.write(1, 1)));

            IllegalArgumentException nullBatch = assertThrows(IllegalArgumentException.class, () -> s.deliver(null));
            assertEquals("batch is null", nullBatch.getMessage());

            IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                    () -> new Batch<TestCommand>(6, List.of(), SummaryBuilder.summarize(d, List.of())));
            assertEquals("batch 6 has no commands", empty.getMessage());

            IllegalArgumentException order = assertThrows(IllegalArgumentException.class,
                    () -> s.deliver(batch(5, d, TestCommand.write(2, 2))));
            assertEquals("batch instance 5 is out of order: the last delivered instance is 5", order.getMessage());

            ConflictDetection wrongSize = ConflictDetection.bitmap(2_048);
            IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
                    () -> s.deliver(batch(6, wrongSize, TestCommand.write(3, 3))));
            assertEquals("bitmap has 2048 bits but the scheduler is configured for 1024 bits", size.getMessage());

            IllegalArgumentException mode = assertThrows(IllegalArgumentException.class,
                    () -> s.deliver(batch(6, ConflictDetection.keysHashed(), TestCommand.write(3, 3))));
            assertEquals("conflict summary mode KEYS_HASHED does not match the scheduler's BITMAP", mode.getMessage());

            ConflictDetection dense = d.withRepresentation(BitmapRepresentation.DENSE);
            IllegalArgumentException repr = assertThrows(IllegalArgumentException.class,
                    () -> s.deliver(batch(6, dense, TestCommand.write(3, 3))));
            assertEquals("bitmap representation DENSE does not match the scheduler's ROARING", repr.getMessage());

            s.deliver(batch(6, d, TestCommand.write(4, 4)));
            assertTrue(s.awaitIdle(30, TimeUnit.SECONDS));
        } finally {
            s.close();
        }
        assertEquals("ok:1", sink.outcome(5, 0));
        assertEquals("ok:4", sink.outcome(6, 0));
        assertEquals(2, s.metrics().batchesExecuted(), "refused batches were not counted as delivered");
    }

    @Test
    void builderRefusesBadSettings() {
        Service<TestCommand, Long> service = TestCommand::id;
        assertEquals("workers must be at least 1, got 0", assertThrows(IllegalArgumentException.class,
                () -> Scheduler.builder(service).workers(0)).getMessage());
        assertEquals("maxPending must be at least 1, got -3", assertThrows(IllegalArgumentException.class,
                () -> Scheduler.builder(service).maxPending(-3)).getMessage());
        assertEquals("bitmap size must be positive, got 0", assertThrows(IllegalArgumentException.class,
                () -> ConflictDetection.bitmap(0)).getMessage());
    }

    /** What the service throws at command 2, and what {@link Scheduler#failure()} then reports. */
    enum Undeclared {
        ERROR(() -> new StackOverflowError("deep recursion in command 2"),
                "java.lang.StackOverflowError: deep recursion in command 2"),
        RUNTIME(() -> new IllegalStateException("store full under command 2"),
                "java.lang.IllegalStateException: store full under command 2"),
        CHECKED(() -> new java.io.IOException("disk gone under command 2"),
                "io.psmr.scheduler.UndeclaredServiceFailure: command 0 of batch 2 threw java.io.IOException: disk gone "
                        + "under command 2, which the service did not declare deterministic");

        final java.util.function.Supplier<Throwable> thrown;
        final String reported;

        Undeclared(java.util.function.Supplier<Throwable> thrown, String reported) {
            this.thrown = thrown;
            this.reported = reported;
        }
    }

    static Stream<Arguments> undeclaredFailures() {
        return Stream.of(Undeclared.values()).flatMap(u -> Stream.of(Arguments.of(u, false), Arguments.of(u, true)));
    }

    @ParameterizedTest(name = "{0}, sequential={1}")
    @MethodSource("undeclaredFailures")
    void aFailureTheServiceDidNotDeclareDeterministicFailStopsTheScheduler(Undeclared kind, boolean sequential)
            throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(1_024);
        RecordingSink sink = new RecordingSink();
        Service<TestCommand, Long> service = c -> {
            if (c.id() == 2) {
                Throwable t = kind.thrown.get();
                if (t instanceof Exception e) {
                    throw e;
                }
                throw (Error) t;
            }
            return c.id();
        };
        String prefix = "failstop-test-" + SCHEDULERS.incrementAndGet() + "-";
        SchedulerBuilder<TestCommand, Long> b = Scheduler.builder(service).resultSink(sink).detection(d).workers(2)
                .threadNamePrefix(prefix);
        Scheduler<TestCommand, Long> s = (sequential ? b.sequential() : b).start();
        s.deliver(batch(1, d, TestCommand.write(1, 1)));
        if (sequential) {
            assertThrows(Throwable.class, () -> s.deliver(batch(2, d, TestCommand.write(2, 1))));
        } else {
            s.deliver(batch(2, d, TestCommand.write(2, 1)));
            Conditions.await("the scheduler to fail-stop", TIMEOUT, () -> s.failure().isPresent());
        }
        assertEquals(kind.reported, s.failure().orElseThrow().toString());
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> s.deliver(batch(3, d, TestCommand.write(3, 1))));
        assertEquals("scheduler failed and stopped: " + kind.reported, refused.getMessage());
        if (!sequential) {
            assertThrows(IllegalStateException.class, () -> s.awaitIdle(30, TimeUnit.SECONDS));
        }
        s.close();
        assertEquals(0, liveThreads(prefix), "close must still join every worker");
        assertEquals("ok:1", sink.outcome(1, 0));
        assertEquals(null, sink.outcome(2, 0), "the stopped command has no outcome");
        assertEquals(null, sink.outcome(3, 0), "nothing runs after the failure");
    }

    @Test
    void closeDrainsPendingWorkAndJoinsEveryWorker() throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(1_024);
        RecordingSink sink = new RecordingSink();
        String prefix = "close-test-" + SCHEDULERS.incrementAndGet() + "-";
        Scheduler<TestCommand, Long> s = Scheduler.<TestCommand, Long>builder(TestCommand::id).resultSink(sink)
                .detection(d).workers(3).threadNamePrefix(prefix).start();
        assertEquals(3, liveThreads(prefix));
        for (long i = 1; i <= 200; i++) {
            s.deliver(batch(i, d, TestCommand.write(i, i % 5)));
        }
        s.close();
        assertEquals(0, liveThreads(prefix), "close must join every worker");
        assertEquals(200, sink.completionOrder().size(), "close must execute everything delivered");
        IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> s.deliver(batch(201, d, TestCommand.write(201, 1))));
        assertEquals("scheduler is closed", closed.getMessage());
        s.close(); // idempotent
    }

    @Test
    void abortDropsBatchesNotYetStartedAndJoinsEveryWorker() throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(1_024);
        RecordingSink sink = new RecordingSink();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Service<TestCommand, Long> service = c -> {
            if (c.id() == 1) {
                started.countDown();
                release.await();
            }
            return c.id();
        };
        String prefix = "abort-test-" + SCHEDULERS.incrementAndGet() + "-";
        Scheduler<TestCommand, Long> s = Scheduler.builder(service).resultSink(sink).detection(d).workers(2)
                .threadNamePrefix(prefix).start();
        for (long i = 1; i <= 5; i++) {
            s.deliver(batch(i, d, TestCommand.write(i, 9)));
        }
        assertTrue(started.await(30, TimeUnit.SECONDS));
        CompletableFuture<List<Batch<TestCommand>>> aborting = CompletableFuture.supplyAsync(s::abort);
        Conditions.await("abort to drop the waiting batches", TIMEOUT, () -> s.metrics().graph().size() == 1);
        release.countDown();
        List<Batch<TestCommand>> dropped = aborting.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(2L, 3L, 4L, 5L), dropped.stream().map(Batch::instance).collect(Collectors.toList()));
        assertEquals(List.of(1L), sink.completionOrder(), "only the running batch completes");
        assertEquals(0, liveThreads(prefix), "abort must join every worker");
    }

    @Test
    void sequentialModeExecutesOnTheDeliveryThreadInOrder() throws Exception {
        ConflictDetection d = ConflictDetection.keysPairwise();
        RecordingSink sink = new RecordingSink();
        List<String> threads = new ArrayList<>();
        Service<TestCommand, Long> service = c -> {
            threads.add(Thread.currentThread().getName());
            return c.id();
        };
        Scheduler<TestCommand, Long> s = Scheduler.builder(service).resultSink(sink).detection(d).sequential().start();
        Thread.currentThread().setName("delivery");
        for (long i = 1; i <= 10; i++) {
            s.deliver(batch(i, d, TestCommand.write(i, i)));
        }
        s.close();
        assertEquals(LongStream.rangeClosed(1, 10).boxed().collect(Collectors.toList()), sink.completionOrder());
        assertTrue(threads.stream().allMatch("delivery"::equals), threads.toString());
        assertEquals(10, s.metrics().commandsExecuted());
    }

    @Test
    void metricsCountWhatHappened() throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(1_024);
        // The first batch runs only once the second is delivered, so the second waits on it in the graph
        // (else a fast worker could finish each batch before the next arrives, and no edge would form).
        java.util.concurrent.CountDownLatch secondDelivered = new java.util.concurrent.CountDownLatch(1);
        Scheduler<TestCommand, Long> s = Scheduler.<TestCommand, Long>builder(c -> {
            if (c.id() == 2) {
                try {
                    assertTrue(secondDelivered.await(30, java.util.concurrent.TimeUnit.SECONDS), "batch 2 delivered");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return c.id();
        }).detection(d).graph(GraphKind.MONITOR).workers(2).maxPending(4).start();
        for (long i = 1; i <= 100; i++) {
            s.deliver(batch(i, d, TestCommand.write(2 * i, 1), TestCommand.write(2 * i + 1, i)));
            if (i == 2) {
                secondDelivered.countDown();
            }
        }
        s.close();
        SchedulerMetrics m = s.metrics();
        assertEquals(100, m.batchesDelivered());
        assertEquals(200, m.commandsDelivered());
        assertEquals(100, m.batchesExecuted());
        assertEquals(200, m.commandsExecuted());
        assertEquals(100, m.graph().inserted());
        assertEquals(100, m.graph().removed());
        assertTrue(m.graph().edgesAdded() > 0, "all batches write key 1, so they chain");
        assertTrue(m.graph().conflictsFound() <= m.graph().conflictChecks());
        assertTrue(m.graph().maxSize() >= 1 && m.graph().maxSize() <= 4, "max size " + m.graph().maxSize());
        assertTrue(m.workerBusyNanos() > 0);
        assertEquals(0, m.graph().size());
    }

    private static long liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive()).count();
    }
}
