package io.psmr.ordering.agent;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link Agent} as tasks of a single-threaded event loop that it does not own (after Agrona's
 * {@code AgentInvoker}, which runs an agent on a host's thread): a transport's event loop, so that an agent whose
 * input and output are that loop's sockets takes a frame and answers it on the thread that read it, with no hand-off
 * to another thread and no wake-up of one.
 *
 * <p>A duty cycle runs when one of the agent's {@link Agent#inboxes() inboxes} takes an element (its {@link Doorbell}
 * queues one cycle on the loop, however many elements come before it runs), again at once while a cycle did work, and
 * every {@code idleWake} regardless, for what arrives by the clock. Between cycles the loop serves its sockets, so a
 * busy agent never starves them, nor they it.
 *
 * <h2>Failure: fail-stop</h2>
 * If {@code onStart} or {@code doWork} throws, the runner logs an ERROR line naming the runner and the agent, stops
 * the cycles, calls {@link Agent#onClose()} on the loop, and {@link #termination()} completes exceptionally with an
 * {@link AgentFailedException}, as {@link AgentRunner} does. The loop itself goes on serving its other tasks.
 *
 * <h2>Threads</h2>
 * The agent's methods run only on the loop, never concurrently, which must therefore run one task at a time on one
 * thread (a Netty {@code EventLoop} does). {@link #start()}, {@link #close()}, {@link #failure()} and
 * {@link #termination()} may be called from any thread; {@code close} from another thread waits until
 * {@code onClose} has run on the loop, so that what the agent's state holds is then visible to the caller.
 */
public final class LoopAgentRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LoopAgentRunner.class);

    private final String name;
    private final Agent agent;
    private final ScheduledExecutorService loop;
    private final long idleWakeNanos;
    private final AtomicBoolean cycleQueued = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CompletableFuture<Void> termination = new CompletableFuture<>();
    private final Runnable cycle = this::cycle;
    private final Object lifecycle = new Object();
    private boolean started; // guarded by lifecycle
    private volatile boolean running = true;
    private volatile Thread loopThread;
    // Written on the loop only; volatile for a close() after the loop was shut down, which closes the agent itself.
    private volatile ScheduledFuture<?> idleWake;
    private volatile boolean agentStarted;
    private volatile boolean agentClosed;

    /**
     * Binds the agent's inboxes to this runner; call {@link #start()} to run it.
     *
     * @param name          for log lines
     * @param agent         the agent, run by this runner only from now on
     * @param loop          the event loop: one thread, one task at a time
     * @param idleWakeNanos the longest an idle agent waits for a cycle (what arrives by the clock); at least 1
     */
    public LoopAgentRunner(String name, Agent agent, ScheduledExecutorService loop, long idleWakeNanos) {
        this.name = Objects.requireNonNull(name, "name");
        this.agent = Objects.requireNonNull(agent, "agent");
        this.loop = Objects.requireNonNull(loop, "loop");
        if (idleWakeNanos < 1) {
            throw new IllegalArgumentException("runner " + name + ": idleWakeNanos must be at least 1, got " + idleWakeNanos);
        }
        this.idleWakeNanos = idleWakeNanos;
        Doorbell bell = this::queueCycle;
        for (BoundedQueue<?> q : agent.inboxes()) {
            q.wakes(bell);
        }
    }

    /**
     * Runs {@code onStart} and the first cycle on the loop. Once only.
     *
     * @throws IllegalStateException if started before or closed, or if the loop takes no more tasks
     */
    public void start() {
        synchronized (lifecycle) {
            if (started) {
                throw new IllegalStateException("runner " + name + " was already started");
            }
            if (!running) {
                throw new IllegalStateException("runner " + name + " is closed");
            }
            started = true;
        }
        try {
            loop.execute(this::startOnLoop);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("runner " + name + ": its event loop is shut down", e);
        }
    }

    private void startOnLoop() {
        loopThread = Thread.currentThread();
        if (!running) {
            return;
        }
        try {
            agent.onStart();
        } catch (Throwable t) {
            fail(t);
            return;
        }
        agentStarted = true;
        idleWake = loop.scheduleAtFixedRate(this::queueCycle, idleWakeNanos, idleWakeNanos, TimeUnit.NANOSECONDS);
        cycle();
    }

    /** The agent's doorbell, and the idle wake: one cycle queued however often it rings before the cycle runs. */
    private void queueCycle() {
        if (running && cycleQueued.compareAndSet(false, true)) {
            try {
                loop.execute(cycle);
            } catch (RejectedExecutionException e) {
                // the loop is shutting down: close() or the loop's owner ends the agent
            }
        }
    }

    private void cycle() {
        cycleQueued.set(false); // first: an element that comes during this cycle queues the next one
        if (!running || !agentStarted) {
            return;
        }
        int work;
        try {
            work = agent.doWork();
        } catch (Throwable t) {
            fail(t);
            return;
        }
        if (work > 0) {
            queueCycle(); // after the loop's pending I/O and tasks: neither starves the other
        }
    }

    private void fail(Throwable t) {
        if (failure.compareAndSet(null, new AgentFailedException(name, agent.roleName(), t))) {
            LOG.error("runner {}: agent {} threw; the runner fail-stops and closes the agent", name, agent.roleName(), t);
        }
        running = false;
        closeOnLoop();
    }

    /** Stops the idle wake and closes the agent, once. Loop only. */
    private void closeOnLoop() {
        if (agentClosed) {
            return;
        }
        agentClosed = true;
        if (idleWake != null) {
            idleWake.cancel(false);
        }
        if (agentStarted) {
            try {
                agent.onClose();
            } catch (Throwable t) {
                LOG.error("runner {}: agent {} threw from onClose", name, agent.roleName(), t);
            }
        }
        Throwable f = failure.get();
        if (f == null) {
            termination.complete(null);
        } else {
            termination.completeExceptionally(f);
        }
    }

    /** Whether the cycles still run: started, not closed and the agent did not fail. */
    public boolean isRunning() {
        synchronized (lifecycle) {
            return started && running;
        }
    }

    /** The exception the agent threw, which stopped the runner; empty while none has. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    /**
     * Completes once the agent is closed: normally after {@link #close()}, exceptionally with an
     * {@link AgentFailedException} if the agent failed. A runner closed before {@link #start()} completes at once.
     */
    public CompletableFuture<Void> termination() {
        return termination;
    }

    /**
     * Stops the cycles and lets the agent {@link Agent#onClose()} on the loop; from another thread, waits for that.
     * If the loop was shut down before, the agent is closed on the caller's thread. Idempotent.
     */
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
        if (Thread.currentThread() == loopThread) {
            closeOnLoop();
            return;
        }
        Future<?> closed;
        try {
            closed = loop.submit(this::closeOnLoop);
        } catch (RejectedExecutionException e) {
            closeOnLoop(); // the loop ran its last task: its thread touches the agent no more
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                closed.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                LOG.error("runner {}: closing agent {} failed", name, agent.roleName(), e.getCause());
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LoopAgentRunner[" + name + ", " + agent.roleName() + ", " + (isRunning() ? "running" : "stopped") + "]";
    }
}
