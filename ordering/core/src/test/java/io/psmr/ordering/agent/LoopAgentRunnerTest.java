package io.psmr.ordering.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoopAgentRunnerTest {

    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    private final ScheduledExecutorService loop = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "test-loop");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void shutDownLoop() {
        loop.shutdownNow();
    }

    /** Takes integers from its inbox, optionally throwing at one; records the threads that ran it. */
    private static final class Taker implements Agent {
        final BoundedQueue<Integer> inbox = new BoundedQueue<>("taker inbox", 16);
        final List<Integer> taken = new CopyOnWriteArrayList<>();
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();
        final AtomicInteger cycles = new AtomicInteger();
        final int failAt;
        volatile Thread closeThread;

        Taker(int failAt) {
            this.failAt = failAt;
        }

        @Override
        public String roleName() {
            return "taker";
        }

        @Override
        public List<BoundedQueue<?>> inboxes() {
            return List.of(inbox);
        }

        @Override
        public void onStart() {
            threads.add(Thread.currentThread());
        }

        @Override
        public int doWork() {
            threads.add(Thread.currentThread());
            cycles.incrementAndGet();
            Integer v = inbox.poll(); // one per cycle: the runner must come back while there is work
            if (v == null) {
                return 0;
            }
            if (v == failAt) {
                throw new IllegalStateException("refused " + v);
            }
            taken.add(v);
            return 1;
        }

        @Override
        public void onClose() {
            closeThread = Thread.currentThread();
        }
    }

    private Thread loopThread() throws Exception {
        return loop.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
    }

    @Test
    void anInboxElementRunsCyclesOnTheLoopUntilTheAgentHasNoWork() throws Exception {
        Taker agent = new Taker(-1);
        // An idle wake of an hour: only the doorbell and the runner's own re-queueing can drive these cycles.
        try (LoopAgentRunner runner = new LoopAgentRunner("test", agent, loop, HOUR)) {
            runner.start();
            for (int i = 0; i < 10; i++) {
                assertTrue(agent.inbox.offer(i));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (agent.taken.size() < 10 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), agent.taken);
            assertEquals(Set.of(loopThread()), agent.threads);
            assertTrue(runner.isRunning());
        }
    }

    @Test
    void closeRunsOnCloseOnTheLoopAndCompletesTermination() throws Exception {
        Taker agent = new Taker(-1);
        LoopAgentRunner runner = new LoopAgentRunner("test", agent, loop, HOUR);
        runner.start();
        Thread loopThread = loopThread(); // queued after the start: onStart has run
        runner.close();
        assertSame(loopThread, agent.closeThread);
        assertTrue(runner.termination().isDone());
        assertTrue(runner.failure().isEmpty());
        runner.close(); // idempotent
        assertThrows(IllegalStateException.class, runner::start);
    }

    @Test
    void aRunnerClosedBeforeTheLoopStartedItNeverStartsTheAgent() throws Exception {
        Taker agent = new Taker(-1);
        CountDownLatch release = new CountDownLatch(1);
        loop.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        LoopAgentRunner runner = new LoopAgentRunner("test", agent, loop, HOUR);
        runner.start(); // queued behind the blocked task
        Thread closer = new Thread(runner::close); // waits for the loop
        closer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (runner.isRunning() && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // until close() has stopped the runner; the loop is still blocked
        }
        assertTrue(!runner.isRunning(), "close() did not stop the runner");
        release.countDown();
        closer.join(10_000);
        assertTrue(runner.termination().isDone());
        assertTrue(agent.threads.isEmpty(), "onStart or doWork ran: " + agent.threads);
        assertEquals(null, agent.closeThread);
    }

    @Test
    void anAgentThatThrowsIsClosedAndReportedAndTheLoopGoesOn() throws Exception {
        Taker agent = new Taker(3);
        LoopAgentRunner runner = new LoopAgentRunner("test-runner", agent, loop, HOUR);
        runner.start();
        for (int i = 0; i < 6; i++) {
            assertTrue(agent.inbox.offer(i));
        }
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> runner.termination().get(10, TimeUnit.SECONDS));
        AgentFailedException failed = assertInstanceOf(AgentFailedException.class, e.getCause());
        assertTrue(failed.getMessage().contains("test-runner") && failed.getMessage().contains("taker"),
                failed.getMessage());
        assertEquals("refused 3", failed.getCause().getMessage());
        assertSame(failed, runner.failure().orElseThrow());
        assertEquals(List.of(0, 1, 2), agent.taken);
        assertSame(loopThread(), agent.closeThread);
        assertTrue(!runner.isRunning());
        int cycles = agent.cycles.get();
        assertTrue(agent.inbox.offer(9)); // no cycle runs after the failure
        assertEquals("still serving", loop.submit(() -> "still serving").get(5, TimeUnit.SECONDS));
        assertEquals(cycles, agent.cycles.get());
    }

    @Test
    void anIdleAgentIsWokenEveryIdleWake() throws Exception {
        CountDownLatch fiveCycles = new CountDownLatch(5);
        Agent idle = new Agent() {
            @Override
            public String roleName() {
                return "idle";
            }

            @Override
            public int doWork() {
                fiveCycles.countDown();
                return 0;
            }
        };
        try (LoopAgentRunner runner = new LoopAgentRunner("test", idle, loop, TimeUnit.MILLISECONDS.toNanos(1))) {
            runner.start();
            assertTrue(fiveCycles.await(10, TimeUnit.SECONDS), "an idle agent got no cycles from its idle wake");
        }
    }

    @Test
    void closeAfterTheLoopWasShutDownClosesTheAgentOnTheCaller() throws Exception {
        Taker agent = new Taker(-1);
        LoopAgentRunner runner = new LoopAgentRunner("test", agent, loop, HOUR);
        runner.start();
        loopThread(); // onStart has run
        loop.shutdown();
        assertTrue(loop.awaitTermination(10, TimeUnit.SECONDS));
        runner.close();
        assertSame(Thread.currentThread(), agent.closeThread);
        assertTrue(runner.termination().isDone());
    }

    @Test
    void refusesAnIdleWakeBelowOneNanosecond() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LoopAgentRunner("test", new Taker(-1), loop, 0));
        assertEquals("runner test: idleWakeNanos must be at least 1, got 0", e.getMessage());
    }
}
