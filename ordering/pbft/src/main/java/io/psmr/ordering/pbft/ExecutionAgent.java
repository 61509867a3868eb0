package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.agent.Agent;
import io.psmr.ordering.agent.BoundedQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The execution stage of one replica as an {@link Agent}: owns its {@link ExecutionStage}, takes committed instances
 * and stable checkpoints from each pillar's queue, releases the total order to a {@link DeliverySink}, and sends the
 * pillars their commands: the checkpoint digest to the pillar in charge, {@code NeedEmpty} to the pillar order waits
 * on (once per awaited sequence number), and each new stable checkpoint to every other pillar once this replica has
 * executed through it.
 *
 * <h2>Backpressure</h2>
 * The pillars' queues are always drained: a pillar commits out of order, so a commit left at a queue head could hide
 * the lower one order waits for. A commit the stage refuses (beyond its window: the pillar's stable checkpoint ran
 * ahead of this replica's execution) is set aside, lowest first, and offered again as the window moves; at most
 * {@code window} are set aside, beyond which this replica is so far behind a stable checkpoint that only state
 * transfer could bring it back, and it fail-stops saying so. With {@link ApplicationCheckpoints}, a stable checkpoint
 * above a gap in its log asks for state transfer instead ({@link ApplicationCheckpoints#transferNeeded}) and freezes
 * execution until the replica is replaced by one resumed from the transferred state. A delivery the sink refuses is
 * kept and offered again before anything else is released. A command whose pillar queue is full is kept, per pillar,
 * and sent first next cycle; pillars drain their commands every cycle, so this holds little, and more than
 * {@code maxHeldCommands} for one pillar is a bug that fail-stops the replica.
 *
 * <p>Concurrency: all state is touched only by the runner thread that runs this agent.
 */
public final class ExecutionAgent implements Agent {

    /** Identity and canonical bytes of a PBFT request, as the execution stage needs them. */
    public static final RequestKeys<Request> REQUEST_KEYS = new RequestKeys<>() {
        @Override
        public long client(Request r) {
            return r.client();
        }

        @Override
        public long number(Request r) {
            return r.number();
        }

        @Override
        public byte[] canonical(Request r) {
            return PbftCodec.requestBytes(r.client(), r.number(), r.payload());
        }
    };

    private final String role;
    private final ExecutionStage<Request> stage;
    private final List<BoundedQueue<ExecutionEvent>> fromPillars;
    private final List<BoundedQueue<PillarCommand>> toPillars;
    private final List<ArrayDeque<PillarCommand>> heldCommands = new ArrayList<>();
    private final DeliverySink sink;
    private final int maxHeldCommands;

    private final TreeMap<Long, PillarOutput.Committed> beyondWindow = new TreeMap<>();
    private final int maxBeyondWindow;
    private final ApplicationCheckpoints app;  // null: the stage's chain checkpoints
    private final long resumedAt;                // the sequence number the stage resumed after (0: from the start)
    private final List<PillarCommand> onStart;   // to every pillar when the agent starts
    private boolean transferring;                // waiting for state transfer: releases nothing
    private long transferSeq;                    // the newest stable checkpoint state transfer was asked for
    private ExecutionStage.Released<Request> heldDelivery;
    private ExecutionEvent.Stable unannounced;
    private long lastAwaited;

    /**
     * @param replica         this replica's id (for names)
     * @param stage           the stage (owned by this agent from now on)
     * @param fromPillars     pillar {@code p}'s events at index {@code p}
     * @param toPillars       pillar {@code p}'s commands at index {@code p}
     * @param sink            where the order goes
     * @param maxHeldCommands commands held for one full pillar queue before it is a bug, at least 1
     * @param maxBeyondWindow commits set aside beyond the stage's window before the replica gives up (the window L)
     */
    public ExecutionAgent(int replica, ExecutionStage<Request> stage, List<BoundedQueue<ExecutionEvent>> fromPillars,
                          List<BoundedQueue<PillarCommand>> toPillars, DeliverySink sink, int maxHeldCommands,
                          int maxBeyondWindow) {
        this(replica, stage, fromPillars, toPillars, sink, maxHeldCommands, maxBeyondWindow, null, 0, List.of());
    }

    /**
     * An execution agent that certifies the application's checkpoints instead of the stage's hash chain, and asks
     * for state transfer instead of fail-stopping when a stable checkpoint leaves it behind.
     *
     * @param app       the application's checkpoints, or null for the stage's chain checkpoints
     * @param resumedAt the sequence number the stage resumed after ({@link ExecutionStage#resumed}), or 0: commits
     *                  at or below it are ignored (its pillars may still order them: they start at the beginning)
     * @param onStart   commands every pillar gets first (adopting the transferred stable checkpoint, the transferred
     *                  duplicate table's {@link PillarCommand.ClientExecuted})
     */
    public ExecutionAgent(int replica, ExecutionStage<Request> stage, List<BoundedQueue<ExecutionEvent>> fromPillars,
                          List<BoundedQueue<PillarCommand>> toPillars, DeliverySink sink, int maxHeldCommands,
                          int maxBeyondWindow, ApplicationCheckpoints app, long resumedAt, List<PillarCommand> onStart) {
        this.app = app;
        this.resumedAt = resumedAt;
        this.onStart = List.copyOf(onStart);
        this.maxBeyondWindow = maxBeyondWindow;
        this.role = "replica-" + replica + "/execution";
        this.stage = Objects.requireNonNull(stage, "stage");
        this.fromPillars = List.copyOf(fromPillars);
        this.toPillars = List.copyOf(toPillars);
        if (this.fromPillars.size() != this.toPillars.size() || this.fromPillars.isEmpty()) {
            throw new IllegalArgumentException(role + ": needs one event and one command queue per pillar, got "
                    + fromPillars.size() + " and " + toPillars.size());
        }
        for (int p = 0; p < this.toPillars.size(); p++) {
            heldCommands.add(new ArrayDeque<>());
        }
        this.sink = Objects.requireNonNull(sink, "sink");
        if (maxHeldCommands < 1) {
            throw new IllegalArgumentException("maxHeldCommands must be at least 1, got " + maxHeldCommands);
        }
        this.maxHeldCommands = maxHeldCommands;
    }

    @Override
    public String roleName() {
        return role;
    }

    @Override
    public void onStart() {
        for (PillarCommand c : onStart) {
            for (int p = 0; p < toPillars.size(); p++) {
                command(p, c);
            }
        }
    }

    /** Whether this replica waits for state transfer (its execution is frozen). Only the agent's thread. */
    boolean transferring() {
        return transferring;
    }

    /** The pillars' commits and stable checkpoints: each wakes this agent's thread. */
    @Override
    public List<BoundedQueue<?>> inboxes() {
        return List.copyOf(fromPillars);
    }

    @Override
    public int doWork() {
        int work = flushCommands();
        if (app != null) {
            ApplicationCheckpoints.Durable d;
            while ((d = app.pollDurable()) != null) {
                command(stage.checkpointPillar(d.seq()), new PillarCommand.CheckpointDigest(d.seq(), d.digest()));
                work++;
            }
        }
        work += retryBeyondWindow();
        for (BoundedQueue<ExecutionEvent> q : fromPillars) {
            work += q.drain(this::take, PillarAgent.BATCH);
        }
        work += release();
        work += retryBeyondWindow();
        work += announceStable();
        OptionalLong awaited = stage.awaitedSeq();
        if (awaited.isPresent() && awaited.getAsLong() != lastAwaited) {
            lastAwaited = awaited.getAsLong();
            command(stage.pillarOf(lastAwaited), new PillarCommand.NeedEmpty(lastAwaited));
            work++;
        }
        return work;
    }

    private void take(ExecutionEvent e) {
        if (e instanceof ExecutionEvent.Commit c) {
            PillarOutput.Committed committed = c.committed();
            if (stage.pillarOf(committed.seq()) != c.pillar()) {
                throw new IllegalStateException(role + ": pillar " + c.pillar() + " committed sequence number "
                        + committed.seq() + ", which belongs to pillar " + stage.pillarOf(committed.seq()));
            }
            if (transferring || committed.seq() <= resumedAt) {
                return; // its state will be replaced, or lies below the checkpoint this stage resumed from
            }
            if (!offer(committed)) {
                if (beyondWindow.putIfAbsent(committed.seq(), committed) != null) {
                    throw new IllegalStateException(role + ": sequence number " + committed.seq() + " was committed twice");
                }
                if (beyondWindow.size() > maxBeyondWindow) {
                    throw new IllegalStateException(role + " is too far behind: " + beyondWindow.size() + " commits up to"
                            + " sequence number " + beyondWindow.lastKey() + " lie beyond its execution window (it waits"
                            + " for " + stage.nextSeq() + "); its pillars' stable checkpoint ran ahead of it, and only"
                            + " state transfer, which is not built, could bring it back");
                }
            }
            return;
        }
        ExecutionEvent.Stable s = (ExecutionEvent.Stable) e;
        if (app != null) {
            long seq = s.checkpoint().seq();
            if (seq > transferSeq && (transferring || gapBelow(s) > 0)) {
                transferring = true;
                transferSeq = seq;
                app.transferNeeded(s.checkpoint());
            }
            if (transferring) {
                return;
            }
        } else {
            requireNoGapBelow(s);
        }
        if (stage.stable(s.checkpoint().seq())) {
            unannounced = s; // a newer stable checkpoint supersedes one not yet announced
        }
    }

    /**
     * A pillar that makes checkpoint {@code s} stable discards its log up to it, so it never commits its own sequence
     * numbers at or below it afterwards (its events come in order: every commit it made came before). If one of them
     * is still missing here, this replica can never execute through {@code s}: it is a replica that started empty,
     * or fell behind, after the others garbage-collected that part of the log. Without state transfer it stops here,
     * saying so, instead of waiting for ever.
     */
    private void requireNoGapBelow(ExecutionEvent.Stable s) {
        long c = gapBelow(s);
        long seq = s.checkpoint().seq();
        if (c > 0) {
                throw new IllegalStateException(role + " cannot catch up: checkpoint " + seq + " became stable at its"
                        + " pillar " + s.pillar() + " (the other replicas discarded their log up to it) while sequence"
                        + " number " + c + " of that pillar never committed here (it executed up to " + (stage.nextSeq() - 1)
                        + "); state transfer is needed to bring it back, and it is not built: restart it only while the"
                        + " others still hold the whole log, or start a new cluster");
        }
    }

    /**
     * The lowest sequence number of the reporting pillar at or below the stable checkpoint that never committed here
     * (its pillar discarded its log up to the checkpoint, so it never will), or 0 if none is missing.
     */
    private long gapBelow(ExecutionEvent.Stable s) {
        long seq = s.checkpoint().seq();
        int pillars = fromPillars.size();
        long first = stage.nextSeq() + Math.floorMod(s.pillar() - stage.nextSeq(), pillars);
        for (long c = first; c <= seq; c += pillars) {
            if (!stage.has(c) && !beyondWindow.containsKey(c)) {
                return c;
            }
        }
        return 0;
    }

    /**
     * Announces the latest stable checkpoint to the other pillars once this replica has executed through it, not
     * before: a pillar discards its log up to a stable checkpoint, and protocol messages for its instances below it
     * may still wait in its inbox (the checkpoint was agreed on another pillar's connections, which can overtake).
     */
    private int announceStable() {
        if (unannounced == null || stage.nextSeq() <= unannounced.checkpoint().seq()) {
            return 0;
        }
        for (int p = 0; p < toPillars.size(); p++) {
            if (p != unannounced.pillar()) {
                command(p, new PillarCommand.Stable(unannounced.checkpoint()));
            }
        }
        unannounced = null;
        return 1;
    }

    private boolean offer(PillarOutput.Committed c) {
        return c.isEmpty() ? stage.offerEmpty(c.seq()) : stage.offer(c.seq(), c.request());
    }

    private int retryBeyondWindow() {
        int n = 0;
        while (!beyondWindow.isEmpty() && offer(beyondWindow.firstEntry().getValue())) {
            beyondWindow.pollFirstEntry();
            n++;
        }
        return n;
    }

    private int release() {
        if (transferring) {
            return 0;
        }
        int n = 0;
        while (true) {
            if (heldDelivery != null) {
                if (!sink.deliver(heldDelivery.instance(), heldDelivery.request())) {
                    return n;
                }
                heldDelivery = null;
                n++;
            }
            ExecutionStage.Released<Request> r = stage.poll();
            if (r == null) {
                return n;
            }
            if (app != null && r.isDelivered() && r.instance() % app.interval() == 0) {
                app.resumeState(r.instance(), stage.resumeState());
            }
            if (r.isCheckpoint()) {
                command(r.checkpointPillar(), new PillarCommand.CheckpointDigest(r.seq(), r.checkpointDigest()));
            }
            if (r.isDelivered()) {
                heldDelivery = r;
            } else {
                n++;
            }
        }
    }

    private void command(int pillar, PillarCommand c) {
        ArrayDeque<PillarCommand> held = heldCommands.get(pillar);
        if (held.isEmpty() && toPillars.get(pillar).offer(c)) {
            return;
        }
        held.add(c);
        if (held.size() > maxHeldCommands) {
            throw new IllegalStateException(role + ": holds " + held.size() + " commands for pillar " + pillar
                    + ", whose queue stays full; more than the bound of " + maxHeldCommands);
        }
    }

    private int flushCommands() {
        int n = 0;
        for (int p = 0; p < heldCommands.size(); p++) {
            ArrayDeque<PillarCommand> held = heldCommands.get(p);
            PillarCommand c;
            while ((c = held.peek()) != null && toPillars.get(p).offer(c)) {
                held.poll();
                n++;
            }
        }
        return n;
    }
}
