package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.agent.Agent;
import io.psmr.ordering.pbft.agent.BoundedQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The execution stage of one replica as an {@link Agent}: owns its {@link ExecutionStage}, takes committed instances
 * and stable checkpoints from each pillar's queue, releases the total order to a {@link DeliverySink}, and sends the
 * pillars their commands: the checkpoint digest to the pillar in charge, {@code NeedEmpty} to the pillar order waits
 * on (once per awaited sequence number), and each new stable checkpoint to every other pillar.
 *
 * <h2>Backpressure</h2>
 * A pillar's commit the stage refuses (beyond its window: the pillar's stable checkpoint ran ahead of this replica's
 * execution) stays at the head of that pillar's queue, so only that pillar is held back. A delivery the sink refuses is
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

    private ExecutionStage.Released<Request> heldDelivery;
    private long lastAwaited;

    /**
     * @param replica         this replica's id (for names)
     * @param stage           the stage (owned by this agent from now on)
     * @param fromPillars     pillar {@code p}'s events at index {@code p}
     * @param toPillars       pillar {@code p}'s commands at index {@code p}
     * @param sink            where the order goes
     * @param maxHeldCommands commands held for one full pillar queue before it is a bug, at least 1
     */
    public ExecutionAgent(int replica, ExecutionStage<Request> stage, List<BoundedQueue<ExecutionEvent>> fromPillars,
                          List<BoundedQueue<PillarCommand>> toPillars, DeliverySink sink, int maxHeldCommands) {
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
    public int doWork() {
        int work = flushCommands();
        for (BoundedQueue<ExecutionEvent> q : fromPillars) {
            ExecutionEvent e;
            int n = 0;
            while (n < PillarAgent.BATCH && (e = q.peek()) != null) {
                if (!take(e)) {
                    break; // beyond the window: this pillar waits, the others go on
                }
                q.poll();
                n++;
            }
            work += n;
        }
        work += release();
        OptionalLong awaited = stage.awaitedSeq();
        if (awaited.isPresent() && awaited.getAsLong() != lastAwaited) {
            lastAwaited = awaited.getAsLong();
            command(stage.pillarOf(lastAwaited), new PillarCommand.NeedEmpty(lastAwaited));
            work++;
        }
        return work;
    }

    private boolean take(ExecutionEvent e) {
        if (e instanceof ExecutionEvent.Commit c) {
            PbftReady.Committed committed = c.committed();
            if (stage.pillarOf(committed.seq()) != c.pillar()) {
                throw new IllegalStateException(role + ": pillar " + c.pillar() + " committed sequence number "
                        + committed.seq() + ", which belongs to pillar " + stage.pillarOf(committed.seq()));
            }
            return committed.isEmpty() ? stage.offerEmpty(committed.seq()) : stage.offer(committed.seq(), committed.request());
        }
        ExecutionEvent.Stable s = (ExecutionEvent.Stable) e;
        if (stage.stable(s.checkpoint().seq())) {
            for (int p = 0; p < toPillars.size(); p++) {
                if (p != s.pillar()) {
                    command(p, new PillarCommand.Stable(s.checkpoint()));
                }
            }
        }
        return true;
    }

    private int release() {
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
