package io.psmr.ordering.pbft.byzantine;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarNetwork;
import io.psmr.ordering.pbft.Refusal;
import io.psmr.ordering.agent.BoundedQueue;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link PillarNetwork} that makes its replica Byzantine: every envelope the replica's pillars send goes through
 * {@link #send}, where the mode's {@link ByzantineBehaviour} rewrites, drops, adds to or holds it back
 * ({@link Adversary}, the same transformations the simulated Byzantine campaign uses) before the real network carries
 * it. Incoming traffic is untouched, so the replica's own pillars run the real protocol; only what the others hear from
 * it lies. <b>A testing and demonstration tool, never for production.</b>
 *
 * <p>This class is the process's plumbing around the adversary: one {@link Adversary} per pillar, the current tick read
 * off the wall clock ({@code tickNanos} long), and the slow leader's timer that sends held envelopes when their tick
 * comes. The adversary holds only this replica's keys ({@code auth} should be an {@code HmacAuthenticator} of this
 * replica's {@code PbftKeys}): it re-MACs and re-signs as itself, and cannot MAC or sign as another replica or a client.
 * It never claims another sender on an envelope (the transport would refuse to send it, {@code UNROUTABLE});
 * {@link ByzantineMode#REPLAYS} forges the sender inside messages instead.
 *
 * <p><b>Determinism.</b> Each pillar's adversary is seeded from {@code seed} and the pillar number, so the same sequence
 * of sends on a pillar gives the same sequence of lies.
 *
 * <p><b>Slow leader.</b> {@link ByzantineMode#SLOW_LEADER} changes no envelope: it holds each PRE-PREPARE this replica
 * sends for {@link #slowLeaderDelayNanos} ({@link Adversary#slowLeaderDelayTicks} ticks) and then sends it unchanged;
 * everything else goes out at once. Each pillar holds at most {@link #slowLeaderBound} of them (one per sequence number
 * of its share of the watermark window); one more is sent at once, not queued.
 *
 * <p><b>Dormant.</b> Constructed dormant, it passes every envelope on unchanged until {@link #wake()}: a replica that
 * warmed up as a correct one turns Byzantine at one moment, as a fault benchmark needs to measure the attack and not a
 * restart. From then on it lies as if it had been Byzantine from the start (its adversaries saw none of the earlier
 * sends).
 *
 * <p><b>Threads.</b> As {@link PillarNetwork}: {@link #send} is called only by the agent of the envelope's pillar, and
 * each pillar's adversary is touched only there; it never blocks. The counters may be read from any thread. In
 * {@link ByzantineMode#SLOW_LEADER} one more thread sends: the network's own timer, a single daemon thread named
 * {@code psmr-pbft-slow-leader-replica-N}, started with the first held PRE-PREPARE and stopped by {@link #close()}. It
 * holds nothing but each pillar's bounded queue of held envelopes (the pillar's agent offers, the timer polls) and
 * calls the delegate's {@link PillarNetwork#send} for them, so <b>the delegate's {@code send} must be safe from a
 * second thread</b>: it is for {@code PbftNettyTransport} (a multi-producer send queue per connection, see its
 * Javadoc) and {@link io.psmr.ordering.pbft.LoopbackNetwork} (any thread). The timer runs one task per held envelope,
 * in the order they were held, and each sends the oldest envelope of its pillar, so a pillar's PRE-PREPAREs go out in
 * the order it made them; only one sent at once over the bound overtakes those held.
 */
public final class ByzantinePillarNetwork implements PillarNetwork, AutoCloseable {

    /**
     * When the slow leader's held envelopes go out: runs {@code task} after {@code delayNanos}, tasks of equal delays in
     * the order they were scheduled, all on one thread. May refuse tasks once closed. Tests drive it by hand.
     */
    interface Scheduler {
        /** Runs {@code task} after {@code delayNanos} on the scheduler's thread; never blocks. */
        void schedule(Runnable task, long delayNanos);

        /** Stops running tasks; tasks not yet run are dropped. */
        void close();
    }

    private final PillarNetwork delegate;
    private final int self;
    private final ByzantineMode mode;
    /** One per pillar, each used only on its pillar's agent thread; null for wrong-replies. */
    private final Adversary[] adversaries;
    private final LongAdder changed = new LongAdder();
    private final LongAdder withheld = new LongAdder();
    private final LongAdder added = new LongAdder();
    private final LongAdder delayed = new LongAdder();
    /** The slow leader's held PRE-PREPAREs per pillar (its agent offers, the scheduler polls); null in other modes. */
    private final BoundedQueue<PbftEnvelope>[] held;
    private final long tickNanos;
    private final Scheduler scheduler;
    private volatile boolean closed;
    /** False while dormant; set once by {@link #wake()}, read by every {@link #send}. */
    private volatile boolean awake;

    /**
     * @param delegate  the real network; in {@link ByzantineMode#SLOW_LEADER} its {@code send} must be safe from a
     *                  second thread (see the class Javadoc)
     * @param self      this replica's id; envelopes from anyone else pass unchanged
     * @param mode      what to do; {@link ByzantineMode#WRONG_REPLIES} leaves every envelope as it is
     * @param config    the cluster's PBFT configuration
     * @param tickNanos the length of the replica's protocol tick ({@code PbftReplicaNode.Settings#tickNanos()}), which
     *                  turns {@code requestTimeoutTicks} into a delay for {@link ByzantineMode#SLOW_LEADER}
     * @param auth      this replica's own keys (MACs and signatures as itself)
     * @param seed      the adversary's seed
     */
    public ByzantinePillarNetwork(PillarNetwork delegate, int self, ByzantineMode mode, PbftConfig config, long tickNanos,
                                  Authenticator auth, long seed) {
        this(delegate, self, mode, config, tickNanos, auth, seed, false);
    }

    /**
     * As the constructor above; {@code dormant}: every envelope passes unchanged until {@link #wake()} (see the class
     * Javadoc).
     */
    public ByzantinePillarNetwork(PillarNetwork delegate, int self, ByzantineMode mode, PbftConfig config, long tickNanos,
                                  Authenticator auth, long seed, boolean dormant) {
        this(delegate, self, mode, config, tickNanos, auth, seed,
                mode == ByzantineMode.SLOW_LEADER ? timer("psmr-pbft-slow-leader-replica-" + self) : null);
        this.awake = !dormant;
    }

    /** As the public constructor, with the slow leader's {@code scheduler} given (null outside slow-leader mode). */
    ByzantinePillarNetwork(PillarNetwork delegate, int self, ByzantineMode mode, PbftConfig config, long tickNanos,
                           Authenticator auth, long seed, Scheduler scheduler) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.mode = Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(auth, "auth");
        if (self < 0 || self >= config.replicaCount()) {
            throw new IllegalArgumentException("replica " + self + " is not one of the " + config.replicaCount());
        }
        if (tickNanos < 1) {
            throw new IllegalArgumentException("tickNanos must be at least 1: " + tickNanos);
        }
        this.self = self;
        this.tickNanos = tickNanos;
        this.awake = true;
        ByzantineBehaviour behaviour = mode.behaviour().orElse(null);
        if (behaviour == null) {
            this.adversaries = null;
        } else {
            this.adversaries = new Adversary[config.pillars()];
            for (int p = 0; p < adversaries.length; p++) {
                adversaries[p] = new Adversary(behaviour, self, config, auth, new Random(seed * 1_000_003L + p));
            }
        }
        if (behaviour == ByzantineBehaviour.SLOW_LEADER) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            @SuppressWarnings("unchecked")
            BoundedQueue<PbftEnvelope>[] queues = new BoundedQueue[config.pillars()];
            for (int p = 0; p < queues.length; p++) {
                queues[p] = new BoundedQueue<>("replica-" + self + "/pillar-" + p + " held pre-prepares",
                        slowLeaderBound(config));
            }
            this.held = queues;
        } else {
            this.scheduler = null;
            this.held = null;
        }
    }

    /**
     * How long {@link ByzantineMode#SLOW_LEADER} holds each PRE-PREPARE: {@link Adversary#slowLeaderDelayTicks} ticks of
     * {@code tickNanos} each.
     */
    public static long slowLeaderDelayNanos(PbftConfig config, long tickNanos) {
        return Adversary.slowLeaderDelayTicks(config) * tickNanos;
    }

    /**
     * The most PRE-PREPARE envelopes {@link ByzantineMode#SLOW_LEADER} holds per pillar: L / Np, the pillar's share of
     * the watermark window (at least 1).
     */
    public static int slowLeaderBound(PbftConfig config) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.watermarkWindow() / config.pillars()));
    }

    /** The slow leader's timer: one named daemon thread, started with the first task. */
    private static Scheduler timer(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return new Scheduler() {
            @Override
            public void schedule(Runnable task, long delay) {
                executor.schedule(task, delay, TimeUnit.NANOSECONDS);
            }

            @Override
            public void close() {
                executor.shutdownNow();
            }
        };
    }

    /** The mode. */
    public ByzantineMode mode() {
        return mode;
    }

    /** Ends the dormancy: from the next {@link #send} on, the mode acts. Any thread; idempotent. */
    public void wake() {
        awake = true;
    }

    /** False while dormant. */
    public boolean awake() {
        return awake;
    }

    /** Envelopes sent in another form than the replica's pillar made them. */
    public long changed() {
        return changed.sum();
    }

    /** Envelopes not sent at all. */
    public long withheld() {
        return withheld.sum();
    }

    /** Envelopes sent that the replica's pillars never made (replays, unprompted lies). */
    public long added() {
        return added.sum();
    }

    /** PRE-PREPARE envelopes held back by {@link ByzantineMode#SLOW_LEADER} (sent since, or still held). */
    public long delayed() {
        return delayed.sum();
    }

    /**
     * Sends what the mode makes of {@code envelope} (possibly nothing, possibly several envelopes). Called on the
     * agent thread of its pillar; never blocks.
     *
     * @return true if every envelope sent was queued (also when the mode withheld it: the pillar must not notice)
     */
    @Override
    public boolean send(PbftEnvelope envelope) {
        if (!awake || adversaries == null || envelope.from() != self || envelope.pillar() < 0
                || envelope.pillar() >= adversaries.length) {
            return delegate.send(envelope);
        }
        long tick = System.nanoTime() / tickNanos;
        Adversary.Outgoing out = adversaries[envelope.pillar()].send(envelope, tick);
        if (out.changed()) {
            changed.increment();
        }
        if (out.withheld()) {
            withheld.increment();
        }
        added.add(out.added());
        boolean ok = true;
        for (PbftEnvelope e : out.now()) {
            ok &= delegate.send(e);
        }
        for (Adversary.Held h : out.held()) {
            ok &= hold(h.envelope(), (h.untilTick() - tick) * tickNanos);
        }
        return ok;
    }

    /**
     * Holds {@code envelope} for {@code delayNanos}, or sends it at once if its pillar already holds
     * {@link #slowLeaderBound} or the network is closed. The pillar's agent thread.
     */
    private boolean hold(PbftEnvelope envelope, long delayNanos) {
        BoundedQueue<PbftEnvelope> queue = held[envelope.pillar()];
        if (closed || !queue.offer(envelope)) {
            return delegate.send(envelope);
        }
        delayed.increment();
        try {
            scheduler.schedule(() -> release(queue), delayNanos);
        } catch (RejectedExecutionException e) {
            // closed meanwhile: the envelope is dropped with the rest of what is held
        }
        return true;
    }

    /** Sends the oldest envelope {@code queue} holds. The scheduler's thread. */
    private void release(BoundedQueue<PbftEnvelope> queue) {
        PbftEnvelope e = queue.poll();
        if (e != null && !closed) {
            delegate.send(e);
        }
    }

    /**
     * Stops the slow leader's timer; what it still holds is never sent (as if lost with the process). Does not close
     * the delegate. Any thread; idempotent.
     */
    @Override
    public void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.close();
        }
    }

    @Override
    public BoundedQueue<byte[]> frames(int replica, int pillar) {
        return delegate.frames(replica, pillar);
    }

    @Override
    public BoundedQueue<byte[]> requests(int replica, int pillar) {
        return delegate.requests(replica, pillar);
    }

    @Override
    public void refused(int replica, int pillar, Request request, Refusal reason) {
        delegate.refused(replica, pillar, request, reason);
    }

    @Override
    public String toString() {
        return "ByzantinePillarNetwork[replica " + self + ", " + mode.cliName() + ", changed " + changed() + ", withheld "
                + withheld() + ", added " + added() + ", delayed " + delayed() + "]";
    }
}
