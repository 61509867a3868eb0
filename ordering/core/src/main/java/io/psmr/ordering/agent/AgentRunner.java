package io.psmr.ordering.agent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code N} {@link Agent}s on {@code T} threads, {@code T} chosen independently of {@code N} (seed 001: the
 * decomposition into agents is the concurrency; the threads that run it are configuration). Agent {@code i} is bound
 * to thread {@code i mod T} for its whole life, so each agent's state is touched by one thread only; each thread runs
 * its agents' {@link Agent#doWork()} in turn (round-robin duty cycle) and, when a whole cycle did no work, backs off
 * through its own {@link IdleStrategy} (spin, yield, park with a bound). With {@code T > N} only {@code N} threads are
 * started (a thread without agents would only idle).
 *
 * <h2>Failure: fail-stop</h2>
 * If an agent's {@code onStart} or {@code doWork} throws, the runner logs an ERROR line naming the runner and the
 * agent, stops every thread, calls each started agent's {@link Agent#onClose()} on its own thread, and reports the
 * failure: {@link #failure()} returns it, and {@link #termination()} completes exceptionally with an
 * {@link AgentFailedException} naming the agent. Nothing restarts it: the owner (a replica) decides what stops.
 *
 * <h2>Threads</h2>
 * {@link #start()}, {@link #close()}, {@link #failure()} and {@link #termination()} may be called from any thread.
 * {@code close} stops the duty cycles, which end after the current {@code doWork} (agents do not block), and joins the
 * threads unless called from one of them (an agent closing its own runner).
 */
public final class AgentRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);

    private final String name;
    private final List<Worker> workers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CompletableFuture<Void> termination = new CompletableFuture<>();
    private final Object lifecycle = new Object();
    private volatile boolean running = true;
    private boolean started; // guarded by lifecycle
    private int live; // threads still running; guarded by lifecycle

    /**
     * @param name    prefix of thread names and log lines
     * @param agents  the agents, at least one, each role name unique
     * @param threads how many threads to run them on, at least 1
     * @param idle    makes each thread's idle strategy
     */
    public AgentRunner(String name, List<? extends Agent> agents, int threads, Supplier<IdleStrategy> idle) {
        this.name = Objects.requireNonNull(name, "name");
        Objects.requireNonNull(idle, "idle");
        if (agents == null || agents.isEmpty()) {
            throw new IllegalArgumentException("runner " + name + ": needs at least one agent");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("runner " + name + ": threads must be at least 1, got " + threads);
        }
        Set<String> roles = new HashSet<>();
        for (Agent a : agents) {
            Objects.requireNonNull(a, "agent");
            if (!roles.add(a.roleName())) {
                throw new IllegalArgumentException("runner " + name + ": two agents have the role name " + a.roleName());
            }
        }
        int t = Math.min(threads, agents.size());
        for (int i = 0; i < t; i++) {
            List<Agent> mine = new ArrayList<>();
            for (int j = i; j < agents.size(); j += t) {
                mine.add(agents.get(j));
            }
            workers.add(new Worker(name + "-" + i, mine, idle.get()));
        }
    }

    /** Starts the threads. Once only. @throws IllegalStateException if started before or closed */
    public void start() {
        synchronized (lifecycle) {
            if (started) {
                throw new IllegalStateException("runner " + name + " was already started");
            }
            if (!running) {
                throw new IllegalStateException("runner " + name + " is closed");
            }
            started = true;
            live = workers.size();
        }
        for (Worker w : workers) {
            w.thread.start();
        }
    }

    /** How many threads run the agents (the requested count, at most the number of agents). */
    public int threadCount() {
        return workers.size();
    }

    /** Whether the duty cycles still run: started, not closed and no agent failed. */
    public boolean isRunning() {
        synchronized (lifecycle) {
            return started && running;
        }
    }

    /** The first exception an agent threw, which stopped the runner; empty while none has. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    /**
     * Completes when every thread has ended (after close or failure): normally after {@link #close()}, exceptionally
     * with an {@link AgentFailedException} if an agent failed. A runner closed before {@link #start()} completes at
     * once.
     */
    public CompletableFuture<Void> termination() {
        return termination;
    }

    /** Stops the duty cycles, lets each agent {@link Agent#onClose()} on its thread, and joins the threads. Idempotent. */
    @Override
    public void close() {
        boolean wasStarted;
        synchronized (lifecycle) {
            running = false;
            wasStarted = started;
        }
        if (!wasStarted) {
            termination.complete(null);
            return;
        }
        boolean interrupted = false;
        for (Worker w : workers) {
            if (w.thread == Thread.currentThread()) {
                continue;
            }
            LockSupport.unpark(w.thread);
            while (w.thread.isAlive()) {
                try {
                    w.thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void fail(Agent agent, Throwable t) {
        if (failure.compareAndSet(null, new AgentFailedException(name, agent.roleName(), t))) {
            LOG.error("runner {}: agent {} threw; the runner fail-stops and closes all its agents", name,
                    agent.roleName(), t);
        }
        running = false;
        for (Worker w : workers) {
            LockSupport.unpark(w.thread);
        }
    }

    private void ended() {
        synchronized (lifecycle) {
            if (--live > 0) {
                return;
            }
        }
        Throwable f = failure.get();
        if (f == null) {
            termination.complete(null);
        } else {
            termination.completeExceptionally(f);
        }
    }

    @Override
    public String toString() {
        return "AgentRunner[" + name + ", " + workers.size() + " threads, " + (isRunning() ? "running" : "stopped") + "]";
    }

    /** One thread and the agents bound to it. */
    private final class Worker implements Runnable {
        private final List<Agent> agents;
        private final IdleStrategy idle;
        private final Thread thread;
        private final ParkingDoorbell doorbell;

        Worker(String threadName, List<Agent> agents, IdleStrategy idle) {
            this.agents = List.copyOf(agents);
            this.idle = idle;
            this.thread = new Thread(this, threadName);
            thread.setDaemon(true);
            this.doorbell = new ParkingDoorbell(thread);
            for (Agent a : agents) {
                for (BoundedQueue<?> q : a.inboxes()) {
                    q.wakes(doorbell);
                }
            }
        }

        @Override
        public void run() {
            int startedCount = 0;
            try {
                for (Agent a : agents) {
                    if (!running) {
                        break;
                    }
                    try {
                        a.onStart();
                    } catch (Throwable t) {
                        fail(a, t);
                        break;
                    }
                    startedCount++;
                }
                if (startedCount == agents.size()) {
                    loop();
                }
            } finally {
                for (int i = 0; i < startedCount; i++) {
                    Agent a = agents.get(i);
                    try {
                        a.onClose();
                    } catch (Throwable t) {
                        LOG.error("runner {}: agent {} threw from onClose", name, a.roleName(), t);
                    }
                }
                ended();
            }
        }

        private void loop() {
            while (running) {
                // Armed before the cycle looks at the inboxes: an element that the cycle misses rings the bell.
                boolean mayPark = idle.parksNext();
                if (mayPark) {
                    doorbell.arm();
                }
                int work = 0;
                for (Agent a : agents) {
                    try {
                        work += a.doWork();
                    } catch (Throwable t) {
                        fail(a, t);
                        return;
                    }
                }
                idle.idle(work);
                if (mayPark) {
                    doorbell.disarm();
                }
            }
        }
    }
}
