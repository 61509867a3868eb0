package io.psmr.ordering.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AgentRunnerTest {

    /** Passes a counter around a ring of agents through bounded queues; records the threads that ran it. */
    private static final class RingAgent implements Agent {
        final String role;
        final BoundedQueue<Integer> inbox;
        BoundedQueue<Integer> next;
        final int target;
        final AtomicInteger done;
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();
        volatile Thread startThread;
        volatile Thread closeThread;
        Integer holding; // a value the next queue refused: kept and retried (backpressure)

        RingAgent(String role, int target, AtomicInteger done) {
            this.role = role;
            this.inbox = new BoundedQueue<>(role + " inbox", 2);
            this.target = target;
            this.done = done;
        }

        @Override
        public String roleName() {
            return role;
        }

        @Override
        public void onStart() {
            startThread = Thread.currentThread();
        }

        @Override
        public int doWork() {
            threads.add(Thread.currentThread());
            if (holding != null) {
                if (!next.offer(holding)) {
                    return 0;
                }
                holding = null;
                return 1;
            }
            Integer v = inbox.poll();
            if (v == null) {
                return 0;
            }
            if (v >= target) {
                done.incrementAndGet();
                return 1;
            }
            if (!next.offer(v + 1)) {
                holding = v + 1;
            }
            return 1;
        }

        @Override
        public void onClose() {
            closeThread = Thread.currentThread();
        }
    }

    private static List<RingAgent> ring(int n, int target, AtomicInteger done) {
        List<RingAgent> agents = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            agents.add(new RingAgent("agent-" + i, target, done));
        }
        for (int i = 0; i < n; i++) {
            agents.get(i).next = agents.get((i + 1) % n).inbox;
        }
        return agents;
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void runsNAgentsOnTThreadsEachAgentOnOneThread() throws Exception {
        AtomicInteger done = new AtomicInteger();
        List<RingAgent> agents = ring(5, 2_000, done);
        AgentRunner runner = new AgentRunner("ring", agents, 2, IdleStrategy::backoff);
        assertEquals(2, runner.threadCount());
        // Several tokens in flight at once: more than the queues hold, so senders must hold and retry.
        for (RingAgent a : agents) {
            a.inbox.offer(0);
        }
        runner.start();
        await(() -> done.get() == 5, "every token went round 2,000 hops");
        runner.close();
        runner.termination().get(5, TimeUnit.SECONDS);
        assertFalse(runner.isRunning());
        Set<Thread> all = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < agents.size(); i++) {
            RingAgent a = agents.get(i);
            assertEquals(1, a.threads.size(), a.role + " ran on more than one thread");
            Thread t = a.threads.iterator().next();
            assertEquals("ring-" + (i % 2), t.getName(), "agent i runs on thread i mod T");
            assertEquals(t, a.startThread);
            assertEquals(t, a.closeThread, "onClose runs on the agent's own thread");
            all.add(t);
        }
        assertEquals(2, all.size());
    }

    @Test
    void moreThreadsThanAgentsStartsOnlyOnePerAgent() {
        AgentRunner runner = new AgentRunner("few", ring(2, 1, new AtomicInteger()), 8, IdleStrategy::backoff);
        assertEquals(2, runner.threadCount());
        runner.close();
        assertTrue(runner.termination().isDone());
    }

    @Test
    void aFailingAgentFailStopsTheRunnerAndClosesEveryAgent() throws Exception {
        AtomicInteger done = new AtomicInteger();
        List<RingAgent> agents = ring(3, Integer.MAX_VALUE, done);
        Agent bomb = new Agent() {
            int calls;

            @Override
            public String roleName() {
                return "bomb";
            }

            @Override
            public int doWork() {
                if (++calls == 100) {
                    throw new IllegalStateException("boom at call 100");
                }
                return 0;
            }
        };
        List<Agent> all = new ArrayList<>(agents);
        all.add(bomb);
        AgentRunner runner = new AgentRunner("failing", all, 3, IdleStrategy::backoff);
        agents.get(0).inbox.offer(0);
        runner.start();
        ExecutionException e = assertThrows(ExecutionException.class, () -> runner.termination().get(10, TimeUnit.SECONDS));
        AgentFailedException f = assertInstanceOf(AgentFailedException.class, e.getCause());
        assertEquals("bomb", f.agent());
        assertEquals("failing", f.runner());
        assertEquals("agent bomb of runner failing failed and stopped the runner: "
                + "java.lang.IllegalStateException: boom at call 100", f.getMessage());
        assertEquals(f, runner.failure().orElseThrow());
        assertFalse(runner.isRunning());
        // Every agent that started is closed, on its own thread; one on a thread that saw the failure
        // before starting it never started (the contract closes started agents only). Agent 0 shares
        // the bomb's thread and starts before it, so it is always closed.
        assertTrue(agents.get(0).closeThread != null, agents.get(0).role + " was not closed");
        for (RingAgent a : agents) {
            assertEquals(a.startThread, a.closeThread, a.role + " must be closed on the thread that started it, and only if started");
        }
        runner.close(); // idempotent after a failure
    }

    @Test
    void badArgumentsAreRefused() {
        assertEquals("runner r: needs at least one agent",
                assertThrows(IllegalArgumentException.class, () -> new AgentRunner("r", List.of(), 1,
                        IdleStrategy::backoff)).getMessage());
        AtomicInteger done = new AtomicInteger();
        assertEquals("runner r: threads must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new AgentRunner("r", ring(1, 1, done), 0,
                        IdleStrategy::backoff)).getMessage());
        List<RingAgent> twins = List.of(new RingAgent("same", 1, done), new RingAgent("same", 1, done));
        assertEquals("runner r: two agents have the role name same",
                assertThrows(IllegalArgumentException.class, () -> new AgentRunner("r", twins, 1,
                        IdleStrategy::backoff)).getMessage());
        AgentRunner once = new AgentRunner("once", ring(1, 1, done), 1, IdleStrategy::backoff);
        once.start();
        assertEquals("runner once was already started", assertThrows(IllegalStateException.class, once::start).getMessage());
        once.close();
    }

    @Test
    void boundedQueueRefusesWhenFullAndNeverGrows() {
        BoundedQueue<String> q = new BoundedQueue<>("q", 2);
        assertTrue(q.offer("a"));
        assertTrue(q.offer("b"));
        assertFalse(q.offer("c"));
        assertEquals(2, q.size());
        List<String> out = new ArrayList<>();
        assertEquals(1, q.drain(out::add, 1));
        assertEquals(List.of("a"), out);
        assertTrue(q.offer("c"));
        assertEquals("b", q.poll());
        assertEquals("c", q.poll());
        assertNull(q.poll());
        assertEquals("queue z: capacity must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new BoundedQueue<>("z", 0)).getMessage());
    }

    @Test
    void idleStrategyBacksOffToItsBoundAndResetsOnWork() {
        IdleStrategy idle = new IdleStrategy(1, 1, 10, 40);
        for (int i = 0; i < 10; i++) {
            idle.idle(0); // spin, yield, then parks of 10, 20, 40, 40, ... ns: bounded
        }
        idle.idle(1);
        assertEquals(40, idle.maxParkNanos());
        assertEquals("need 1 <= minParkNanos <= maxParkNanos, got 5 and 4",
                assertThrows(IllegalArgumentException.class, () -> new IdleStrategy(0, 0, 5, 4)).getMessage());
    }

    /**
     * A thread that parks for an hour between idle cycles still takes an element at once: its agent lists the
     * queue as an inbox, so the offer rings the thread's doorbell. Without the doorbell the wait below times out.
     */
    @Test
    void anInboxWakesAThreadParkedForLong() throws Exception {
        BoundedQueue<Integer> inbox = new BoundedQueue<>("inbox", 4);
        List<Integer> taken = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicReference<Thread> runnerThread = new java.util.concurrent.atomic.AtomicReference<>();
        Agent consumer = new Agent() {
            @Override
            public String roleName() {
                return "consumer";
            }

            @Override
            public List<BoundedQueue<?>> inboxes() {
                return List.of(inbox);
            }

            @Override
            public int doWork() {
                runnerThread.set(Thread.currentThread());
                return inbox.drain(taken::add, 16);
            }
        };
        long hour = TimeUnit.HOURS.toNanos(1);
        try (AgentRunner runner = new AgentRunner("bell", List.of(consumer), 1, () -> new IdleStrategy(0, 0, hour, hour))) {
            runner.start();
            for (int v = 1; v <= 3; v++) {
                awaitParked(runnerThread);
                assertTrue(inbox.offer(v));
                int expected = v;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (taken.size() < expected && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(expected, taken.size(), "element " + v + " not taken within 10 s: the offer did not wake the thread");
            }
            assertEquals(List.of(1, 2, 3), taken);
        }
    }

    private static void awaitParked(java.util.concurrent.atomic.AtomicReference<Thread> thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Thread t = thread.get();
            if (t != null && t.getState() == Thread.State.TIMED_WAITING) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the runner thread never parked");
    }
}
