package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.agent.Agent;
import io.psmr.ordering.agent.BoundedQueue;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A COP pillar (seeds 000 §4.1 and 001): the {@link Agent} that owns one {@link PbftCore} and everything it touches.
 * Each duty cycle it
 * <ol>
 *   <li>applies every command of its execution stage (checkpoint digests, EMPTY requests, stable checkpoints);</li>
 *   <li>unless it still holds outputs for the execution stage, decodes and steps client requests and frames from its
 *       private inboxes (a bounded batch each);</li>
 *   <li>turns elapsed time of the replica's clock into {@link PbftCore#tick() ticks} (the core has no clock; at most
 *       {@value #MAX_TICKS_PER_CYCLE} per cycle, dropping ticks a stalled thread missed; none while it holds outputs
 *       for a full execution queue, so the replica's own slowness never looks like a slow leader);</li>
 *   <li>drains the core's {@link Ready}: sends the envelopes through the {@link PillarNetwork}, queues committed
 *       instances and stable checkpoints for the execution stage, keeping in order what its queue refused, and
 *       advances the core (a pillar persists nothing).</li>
 * </ol>
 * Backpressure: while the execution stage's queue is full, the pillar stops taking protocol input (so its core stops
 * committing) but still applies the execution stage's commands, so the two can never wait on each other. What it holds
 * is bounded by the watermark window (a core commits nothing beyond it); more is a core bug and fail-stops the replica.
 *
 * <p>Concurrency: all state, the core included, is touched only by the thread that runs this agent (an
 * {@link io.psmr.ordering.agent.AgentRunner} thread, or over TCP the pillar's event loop through a
 * {@link io.psmr.ordering.agent.LoopAgentRunner}); the queues are its only contact with other threads.
 */
public final class PillarAgent implements Agent {

    private static final Logger LOG = LoggerFactory.getLogger(PillarAgent.class);

    /** Inputs of one kind taken per duty cycle, so that no inbox starves the others. */
    static final int BATCH = 64;
    /** Ticks applied per duty cycle at most; a thread that stalled longer loses the rest (time, not work). */
    static final int MAX_TICKS_PER_CYCLE = 4;

    private final String role;
    private final boolean logViews; // at INFO; at DEBUG for a rehearsal's replicas
    private final int replica;
    private final PbftCore core;
    private final PillarNetwork network;
    private final BoundedQueue<byte[]> frames;
    private final BoundedQueue<byte[]> requests;
    private final BoundedQueue<PillarCommand> commands;
    private final BoundedQueue<ExecutionEvent> toExecution;
    private final LongSupplier clock;
    private final long tickNanos;
    private final int maxHeld;

    private final ArrayDeque<ExecutionEvent> held = new ArrayDeque<>();
    private long nextTickAt;
    private volatile long malformed; // written by this agent only; volatile for monitoring
    private volatile long refusedRequests; // likewise
    private volatile PillarSnapshot snapshot;

    /**
     * @param label       the replica's label ({@link PbftReplicaNode.Settings#label()}), the role name's first part
     * @param replica     this replica's id
     * @param core        the pillar's protocol core (owned by this agent from now on)
     * @param network     the network: this pillar's inboxes and where its envelopes go
     * @param commands    from the execution stage to this pillar
     * @param toExecution from this pillar to the execution stage
     * @param clock       the replica's clock in nanoseconds (for example {@code System::nanoTime}); read only here
     * @param tickNanos   the length of one tick, at least 1
     * @param maxHeld     outputs held for a full execution queue before it is a core bug (the watermark window L)
     */
    public PillarAgent(String label, int replica, PbftCore core, PillarNetwork network,
                       BoundedQueue<PillarCommand> commands, BoundedQueue<ExecutionEvent> toExecution, LongSupplier clock, long tickNanos, int maxHeld) {
        this.replica = replica;
        this.core = Objects.requireNonNull(core, "core");
        this.network = Objects.requireNonNull(network, "network");
        this.frames = network.frames(replica, core.pillar());
        this.requests = network.requests(replica, core.pillar());
        this.commands = Objects.requireNonNull(commands, "commands");
        this.toExecution = Objects.requireNonNull(toExecution, "toExecution");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (tickNanos < 1) {
            throw new IllegalArgumentException("tickNanos must be at least 1, got " + tickNanos);
        }
        this.tickNanos = tickNanos;
        this.maxHeld = maxHeld;
        this.role = label + "-" + replica + "/pillar-" + core.pillar();
        this.logViews = PbftReplicaNode.Settings.REPLICA.equals(label);
    }

    @Override
    public String roleName() {
        return role;
    }

    /** Frames, requests and the execution stage's commands: each wakes this agent's thread. */
    @Override
    public List<BoundedQueue<?>> inboxes() {
        return List.of(frames, requests, commands);
    }

    @Override
    public void onStart() {
        nextTickAt = clock.getAsLong() + tickNanos;
    }

    @Override
    public int doWork() {
        int work = commands.drain(this::apply, Integer.MAX_VALUE);
        if (held.isEmpty()) {
            work += requests.drain(this::propose, BATCH);
            work += frames.drain(this::step, BATCH);
            tick(); // not work by itself: what a tick sends counts below, and an idle thread may park until the next
        } else {
            // Held back by this replica's own execution: time spent so must not fire the core's timers, or the
            // pillar would suspect a leader for its own slowness and start a view change alone.
            nextTickAt = clock.getAsLong() + tickNanos;
        }
        work += drainReady();
        work += flush();
        return work;
    }

    private void apply(PillarCommand command) {
        if (command instanceof PillarCommand.CheckpointDigest d) {
            core.checkpointDigest(d.seq(), d.digest());
        } else if (command instanceof PillarCommand.NeedEmpty e) {
            core.needEmpty(e.seq());
        } else if (command instanceof PillarCommand.Stable s) {
            core.stableCheckpoint(s.checkpoint());
        } else if (command instanceof PillarCommand.ClientExecuted c) {
            core.clientExecuted(c.client(), c.number());
        }
    }

    private void propose(byte[] encoded) {
        PbftMessage m;
        try {
            m = PbftCodec.decode(encoded);
        } catch (IllegalArgumentException e) {
            refuseMalformed("request", e);
            return;
        }
        if (m instanceof Request r) {
            Optional<Refusal> refusal = core.propose(r);
            if (refusal.isPresent()) {
                refusedRequests++;
                network.refused(replica, core.pillar(), r, refusal.get()); // its proposer fails it at once
            }
        } else {
            refuseMalformed("request", new IllegalArgumentException("not a request: " + m.getClass().getSimpleName()));
        }
    }

    private void step(byte[] frame) {
        PbftEnvelope e;
        try {
            e = EnvelopeCodec.decode(frame);
        } catch (IllegalArgumentException ex) {
            refuseMalformed("frame", ex);
            return;
        }
        core.step(e);
    }

    private void refuseMalformed(String what, IllegalArgumentException e) {
        // Counted, and logged only at powers of two: a faulty peer must not flood the log.
        if (Long.bitCount(++malformed) == 1) {
            LOG.warn("{}: refused a malformed {} ({} so far): {}", role, what, malformed, e.getMessage());
        }
    }

    private int tick() {
        long now = clock.getAsLong();
        int ticks = 0;
        while (now - nextTickAt >= 0 && ticks < MAX_TICKS_PER_CYCLE) {
            core.tick();
            nextTickAt += tickNanos;
            ticks++;
        }
        if (now - nextTickAt >= 0) {
            nextTickAt = now + tickNanos;
        }
        if (ticks > 0 || snapshot == null) {
            PillarSnapshot previous = snapshot;
            snapshot = core.snapshot(malformed); // once per tick: copying the counters every cycle would cost
            if (previous != null && snapshot.view() != previous.view()) {
                logViewChange(snapshot);
            } else if (previous != null && snapshot.isChangingView() && snapshot.changingTo() != previous.changingTo()) {
                logView("{}: leaves view {} for view {}: {}", role, snapshot.view(), snapshot.changingTo(),
                        snapshot.leftBecause() == null ? "no cause given" : snapshot.leftBecause().description());
            }
        }
        return ticks;
    }

    /** One line per installed view: operators see view changes and whom the leader policy keeps out. */
    private void logViewChange(PillarSnapshot s) {
        StringBuilder kept = new StringBuilder();
        s.excluded().forEach((replica, through) -> kept.append(kept.length() == 0 ? "; kept from leading: " : ", ")
                .append("replica ").append(replica).append(" through instance ").append(through));
        logView("{}: in view {}{}", role, s.view(), kept);
    }

    private void logView(String format, Object... args) {
        if (logViews) {
            LOG.info(format, args);
        } else {
            LOG.debug(format, args);
        }
    }

    private int drainReady() {
        Ready<PbftEnvelope, Void, PillarOutput> ready = core.ready();
        if (ready.isEmpty()) {
            return 0;
        }
        for (PbftEnvelope e : ready.messages()) {
            network.send(e);
        }
        int pillar = core.pillar();
        // Commits first, then stable checkpoints: a checkpoint may cover instances committed in the same Ready.
        for (PillarOutput o : ready.outputs()) {
            if (o instanceof PillarOutput.Committed c) {
                held.add(new ExecutionEvent.Commit(pillar, c));
            }
        }
        for (PillarOutput o : ready.outputs()) {
            if (o instanceof PillarOutput.StableCheckpoint s) {
                held.add(new ExecutionEvent.Stable(pillar, s));
            }
        }
        core.advance(ready);
        if (held.size() > maxHeld) {
            throw new IllegalStateException(role + ": holds " + held.size() + " outputs for a full execution queue, more"
                    + " than the watermark window of " + maxHeld + " allows; the pillar core commits beyond its window");
        }
        return 1;
    }

    private int flush() {
        int n = 0;
        ExecutionEvent e;
        while ((e = held.peek()) != null && toExecution.offer(e)) {
            held.poll();
            n++;
        }
        return n;
    }

    /**
     * The core's {@link PbftCore#highestViewEntered}. Only once this agent's thread has ended: the core is the
     * thread's alone while it runs.
     */
    long highestViewEntered() {
        return core.highestViewEntered();
    }

    /** The core's {@link PbftCore#viewsSeen}. Only once this agent's thread has ended, as above. */
    long[] viewsSeen() {
        return core.viewsSeen();
    }

    /** The pillar's view, h and refusal counters as of its last tick (a snapshot: any thread). */
    public PillarSnapshot snapshot() {
        PillarSnapshot s = snapshot;
        return s != null ? s : new PillarSnapshot(core.pillar(), -1, -1, java.util.Map.of(), malformed);
    }

    /** Frames and requests this agent could not decode. Any thread. */
    public long malformed() {
        return malformed;
    }

    /** Client requests the core refused so far (see its refusal counters for why). */
    public long refusedRequests() {
        return refusedRequests;
    }

    /** This replica's id. */
    public int replica() {
        return replica;
    }
}
