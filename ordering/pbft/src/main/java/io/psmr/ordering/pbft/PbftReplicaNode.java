package io.psmr.ordering.pbft;

import io.psmr.ordering.agent.Agent;
import io.psmr.ordering.agent.AgentRunner;
import io.psmr.ordering.agent.BoundedQueue;
import io.psmr.ordering.agent.IdleStrategy;
import io.psmr.ordering.agent.LoopAgentRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * One PBFT replica with COP (seed 000 §4): {@code Np} {@link PillarAgent}s, each owning one {@link PbftCore}, and
 * one {@link ExecutionAgent}. The agents share nothing; they talk through bounded queues: pillar → execution
 * (committed instances, stable checkpoints) and execution → pillar (checkpoint digests, EMPTY requests, stable
 * checkpoints), and to other replicas through the {@link PillarNetwork} (in one JVM the {@link LoopbackNetwork}).
 *
 * <p>Threads: one {@link AgentRunner} runs the execution agent, and every pillar whose network has no
 * {@link PillarNetwork#eventLoop event loop} for it, on {@link Settings#threads()} threads. A pillar that has one
 * (over TCP, {@code PbftNettyTransport}) runs on it through a {@link LoopAgentRunner}: it steps a frame on the thread
 * that read it and its envelopes are written on that thread, with no hand-off and no wake-up of another thread per
 * message.
 *
 * <p>Failure is fail-stop: if any agent throws, the replica stops all of them and {@link #failure()} says which and
 * why; the replica then takes no further part (the other replicas tolerate it as one of the f faults).
 *
 * <p>Thread safety: {@link #start()}, {@link #close()} and {@link #failure()} from any thread.
 */
public final class PbftReplicaNode implements AutoCloseable {

    /**
     * The longest park of an idle agent thread, in ticks: one less than the ticks a pillar applies per duty cycle
     * ({@link PillarAgent#MAX_TICKS_PER_CYCLE}), so that a thread woken after it loses none.
     */
    static final int IDLE_PARK_TICKS = PillarAgent.MAX_TICKS_PER_CYCLE - 1;

    /**
     * How one replica runs.
     *
     * @param threads           runner threads, at least 1 (independent of the number of pillars: seed 001)
     * @param tickNanos         length of one protocol tick in nanoseconds, at least 1
     * @param queueCapacity     capacity of each pillar ↔ execution queue, at least 1
     * @param dedupWindow       request numbers remembered per client for exactly-once delivery
     *                          ({@link RequestDeduplicator}); at least the requests a client keeps outstanding
     * @param maxClients        clients remembered for exactly-once delivery
     */
    public record Settings(int threads, long tickNanos, int queueCapacity, int dedupWindow, int maxClients,
                           String label) {
        /** The label of a replica that serves: its threads are {@code psmr-pbft-replica-<id>}. */
        public static final String REPLICA = "replica";

        /** Validates. */
        public Settings {
            if (threads < 1 || tickNanos < 1 || queueCapacity < 1 || dedupWindow < 1 || maxClients < 1) {
                throw new IllegalArgumentException("replica settings must all be positive, got threads " + threads
                        + ", tickNanos " + tickNanos + ", queueCapacity " + queueCapacity + ", dedupWindow "
                        + dedupWindow + ", maxClients " + maxClients);
            }
            if (label == null || !label.matches("[a-z]+")) {
                throw new IllegalArgumentException("replica label must be lower-case letters, got " + label);
            }
        }

        /** The same as {@link #REPLICA}. */
        public Settings(int threads, long tickNanos, int queueCapacity, int dedupWindow, int maxClients) {
            this(threads, tickNanos, queueCapacity, dedupWindow, maxClients, REPLICA);
        }

        /** Defaults: 2 threads, 10 ms ticks, queues of 1,024, 4,096 numbers per client, 1,024 clients. */
        public static Settings defaults() {
            return new Settings(2, 10_000_000L, 1024, 4096, 1024);
        }

        /** The same with {@code n} threads. */
        public Settings withThreads(int n) {
            return new Settings(n, tickNanos, queueCapacity, dedupWindow, maxClients, label);
        }

        /**
         * The same under another label, which names the threads ({@code psmr-pbft-<label>-<id>}) and log lines; a
         * replica labelled other than {@link #REPLICA} logs its view changes at DEBUG (a {@link FailoverRehearsal}'s
         * replicas would otherwise fill a serving replica's log with views that are not its own).
         */
        public Settings withLabel(String label) {
            return new Settings(threads, tickNanos, queueCapacity, dedupWindow, maxClients, label);
        }
    }

    private final int replica;
    private final AgentRunner runner;
    private final List<LoopAgentRunner> onLoops = new ArrayList<>();
    private final CompletableFuture<Void> termination;
    private final List<PillarAgent> pillarAgents = new ArrayList<>();

    /**
     * Assembles the replica; call {@link #start()} to run it.
     *
     * @param replica  this replica's id, {@code 0..n-1}
     * @param config   the cluster's configuration
     * @param cores    the pillar cores, {@code cores.get(p).pillar() == p}, one per pillar of {@code config}
     * @param network  the network between replicas
     * @param sink     where the replica's total order goes (called on the execution agent's thread)
     * @param settings threads, tick, queue bounds
     * @param clock    the replica's clock in nanoseconds, read only by the pillar agents to make ticks
     */
    public PbftReplicaNode(int replica, PbftConfig config, List<? extends PbftCore> cores, PillarNetwork network,
                           DeliverySink sink, Settings settings, LongSupplier clock) {
        this(replica, config, cores, network, sink, settings, clock, null);
    }

    /**
     * How a replica certifies its application's checkpoints (docs/pbft.md, state transfer).
     *
     * @param app    the application's checkpoints
     * @param resume where execution resumes (a local or transferred checkpoint's ordering state), or null: from the start
     * @param adopt  the stable checkpoint its pillars adopt first (the proof state transfer was checked against), or
     *               null (a replica resumed from its own checkpoint learns the next stable one from the others)
     */
    public record AppCheckpoints(ApplicationCheckpoints app, PbftResumeState resume, PillarOutput.StableCheckpoint adopt) {
        /** Checks that the adopted checkpoint is the resumed one. */
        public AppCheckpoints {
            Objects.requireNonNull(app, "app");
            if (adopt != null && (resume == null || adopt.seq() != resume.seq())) {
                throw new IllegalArgumentException("the adopted stable checkpoint " + adopt.seq()
                        + " is not the one execution resumes from (" + (resume == null ? "none" : resume.seq()) + ")");
            }
        }
    }

    /**
     * Checks that {@code config} can certify application checkpoints every {@code interval} delivered instances:
     * every sequence number must be a checkpoint number (K = 1; the checkpoint is at s(n)), and the watermark window
     * must span at least twice the sequence numbers between two checkpoints (at most {@code interval · Np}: EMPTY
     * instances only fill holes below delivered ones), so that it stays open while a checkpoint is written.
     *
     * @throws IllegalArgumentException naming the setting to change
     */
    public static void checkAppCheckpoints(PbftConfig config, long interval) {
        if (config.checkpointInterval() != 1) {
            throw new IllegalArgumentException("PBFT checkpoints follow the application's checkpoints, so every sequence"
                    + " number must be able to carry one: checkpointInterval must be 1, got " + config.checkpointInterval());
        }
        long needed = 2 * interval * config.pillars();
        if (config.watermarkWindow() < needed) {
            throw new IllegalArgumentException("watermarkWindow " + config.watermarkWindow() + " is too small for an"
                    + " application checkpoint every " + interval + " instances with " + config.pillars() + " pillars: up"
                    + " to " + interval * config.pillars() + " sequence numbers lie between two checkpoints, so it must"
                    + " be at least " + needed + " (or checkpoint more often)");
        }
    }

    /**
     * As the other constructor; with {@code checkpoints} non-null the replica certifies the application's
     * checkpoints and asks it for state transfer when it falls behind ({@link AppCheckpoints}).
     *
     * @throws IllegalArgumentException as {@link #checkAppCheckpoints}
     */
    public PbftReplicaNode(int replica, PbftConfig config, List<? extends PbftCore> cores, PillarNetwork network,
                           DeliverySink sink, Settings settings, LongSupplier clock, AppCheckpoints checkpoints) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(settings, "settings");
        if (replica < 0 || replica >= config.replicaCount()) {
            throw new IllegalArgumentException("replica " + replica + " is not one of 0.." + (config.replicaCount() - 1));
        }
        if (cores.size() != config.pillars()) {
            throw new IllegalArgumentException("replica " + replica + ": " + cores.size() + " pillar cores for "
                    + config.pillars() + " pillars");
        }
        if (config.watermarkWindow() > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("watermarkWindow " + config.watermarkWindow() + " is too large to buffer");
        }
        this.replica = replica;
        int window = (int) config.watermarkWindow();
        List<BoundedQueue<ExecutionEvent>> events = new ArrayList<>();
        List<BoundedQueue<PillarCommand>> commands = new ArrayList<>();
        List<Agent> agents = new ArrayList<>();
        String name = settings.label() + "-" + replica; // names queues, roles and threads
        for (int p = 0; p < config.pillars(); p++) {
            PbftCore core = cores.get(p);
            if (core.pillar() != p) {
                throw new IllegalArgumentException("replica " + replica + ": core at index " + p + " runs pillar "
                        + core.pillar());
            }
            BoundedQueue<ExecutionEvent> toExecution = new BoundedQueue<>(name + "/pillar-" + p + " to execution",
                    settings.queueCapacity());
            BoundedQueue<PillarCommand> toPillar = new BoundedQueue<>(name + "/execution to pillar-" + p,
                    settings.queueCapacity());
            events.add(toExecution);
            commands.add(toPillar);
            // A pillar holds at most what its core can commit beyond a full queue: the watermark window, plus the
            // stable checkpoints that may come with it.
            PillarAgent agent = new PillarAgent(settings.label(), replica, core, network, toPillar, toExecution, clock,
                    settings.tickNanos(), window + window / (int) Math.min(window, config.checkpointInterval()) + 1);
            pillarAgents.add(agent);
            Optional<ScheduledExecutorService> loop = network.eventLoop(p);
            if (loop.isPresent()) {
                onLoops.add(new LoopAgentRunner("psmr-pbft-" + name + "/pillar-" + p, agent, loop.get(),
                        IDLE_PARK_TICKS * settings.tickNanos()));
            } else {
                agents.add(agent);
            }
        }
        ExecutionStage<PbftMessage.Request> stage;
        List<PillarCommand> onStart = new ArrayList<>();
        if (checkpoints == null) {
            stage = new ExecutionStage<>(config.pillars(), window,
                    (int) Math.min(Integer.MAX_VALUE, config.checkpointInterval()), 1, ExecutionAgent.REQUEST_KEYS,
                    new RequestDeduplicator(settings.dedupWindow(), settings.maxClients()));
        } else {
            checkAppCheckpoints(config, checkpoints.app().interval());
            PbftResumeState resume = checkpoints.resume();
            if (resume == null) {
                stage = new ExecutionStage<>(config.pillars(), window, 1, 1, ExecutionAgent.REQUEST_KEYS,
                        new RequestDeduplicator(settings.dedupWindow(), settings.maxClients()), false);
            } else {
                stage = ExecutionStage.resumed(config.pillars(), window, resume, ExecutionAgent.REQUEST_KEYS,
                        checkpoints.adopt() != null);
                if (checkpoints.adopt() != null) {
                    onStart.add(new PillarCommand.Stable(checkpoints.adopt()));
                }
                // Requests ordered in the stretch this replica skipped would otherwise stay pending at its pillars.
                resume.dedup().forEachClient((client, number) -> onStart.add(new PillarCommand.ClientExecuted(client, number)));
            }
        }
        // The execution agent runs first on thread 0: with fewer threads than agents it shares a thread with pillars.
        // Commands are held only while a pillar's queue is full, and pillars empty it every cycle: at most one per
        // sequence number of the window (EMPTY requests) plus checkpoints is generous.
        agents.add(0, new ExecutionAgent(replica, stage, events, commands, sink, 2 * window + 2 + onStart.size(), window,
                checkpoints == null ? null : checkpoints.app(), checkpoints == null || checkpoints.resume() == null ? 0
                        : checkpoints.resume().seq(), onStart));
        // Inboxes wake the threads, so an idle thread may park for several ticks: only ticks arrive by the clock, and
        // a pillar applies the ticks that came due meanwhile together (below its per-cycle limit, so none is lost).
        // An idle replica's threads then wake a third as often as with one tick.
        this.runner = new AgentRunner("psmr-pbft-" + name, agents, settings.threads(),
                () -> IdleStrategy.backoff(IDLE_PARK_TICKS * settings.tickNanos()));
        List<CompletableFuture<Void>> ends = new ArrayList<>();
        ends.add(runner.termination());
        onLoops.forEach(l -> ends.add(l.termination()));
        this.termination = CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new));
        // Fail-stop across runners: one agent's failure ends them all, as within one runner. On a thread of its own:
        // the failure completes on a runner's or a loop's thread, and closing a loop runner waits for its loop, so
        // two pillars failing together on their loops would otherwise wait for each other.
        for (CompletableFuture<Void> end : ends) {
            end.whenComplete((ok, failed) -> {
                if (failed != null) {
                    Thread stopper = new Thread(this::close, "psmr-pbft-" + name + "-fail-stop");
                    stopper.setDaemon(true);
                    stopper.start();
                }
            });
        }
    }

    /** Starts the agents: the runner's threads and the pillars on event loops. */
    public void start() {
        runner.start();
        onLoops.forEach(LoopAgentRunner::start);
    }

    /** This replica's id. */
    public int replica() {
        return replica;
    }

    /**
     * Each pillar's view, last stable checkpoint and refusal counters, as of its last tick (index = pillar). Any
     * thread.
     */
    public List<PillarSnapshot> pillars() {
        List<PillarSnapshot> out = new ArrayList<>(pillarAgents.size());
        for (PillarAgent a : pillarAgents) {
            out.add(a.snapshot());
        }
        return out;
    }

    /**
     * What each pillar hands to its successor (index = pillar) in the incarnation that replaces this one after a state
     * transfer: the highest view it entered and the views it saw the others in. Only after {@link #close}: the ended
     * threads publish their cores' state.
     *
     * @throws IllegalStateException while the agents' threads still run
     */
    public List<PillarHandover> handover() {
        if (!termination.isDone()) {
            throw new IllegalStateException("replica " + replica + "'s pillars still run: close it before reading"
                    + " what they hand over");
        }
        List<PillarHandover> out = new ArrayList<>(pillarAgents.size());
        for (PillarAgent a : pillarAgents) {
            out.add(new PillarHandover(a.highestViewEntered(), a.viewsSeen()));
        }
        return List.copyOf(out);
    }

    /** The exception that fail-stopped this replica, if one did. */
    public Optional<Throwable> failure() {
        Optional<Throwable> f = runner.failure();
        for (LoopAgentRunner l : onLoops) {
            if (f.isPresent()) {
                break;
            }
            f = l.failure();
        }
        return f;
    }

    /** Completes when every agent has ended (exceptionally if one failed). */
    public CompletableFuture<Void> termination() {
        return termination;
    }

    /** Stops the agents and joins the runner's threads. Idempotent. */
    @Override
    public void close() {
        runner.close();
        onLoops.forEach(LoopAgentRunner::close);
    }

    @Override
    public String toString() {
        return "PbftReplicaNode[" + replica + ", " + runner + "]";
    }
}
