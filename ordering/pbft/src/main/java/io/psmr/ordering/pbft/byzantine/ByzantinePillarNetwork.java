package io.psmr.ordering.pbft.byzantine;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftDigests;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftMessage;
import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import io.psmr.ordering.pbft.PillarNetwork;
import io.psmr.ordering.pbft.Refusal;
import io.psmr.ordering.agent.BoundedQueue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link PillarNetwork} that makes its replica Byzantine: every envelope the replica's pillars send goes through
 * {@link #send}, which rewrites, drops, duplicates or adds to it as the {@link ByzantineMode} says, before the real
 * network carries it. Incoming traffic is untouched, so the replica's own pillars run the real protocol (they know
 * views, watermarks and requests as a correct replica would); only what the others hear from it lies.
 * <b>A testing and demonstration tool, never for production.</b>
 *
 * <p>Modelled on the simulation's adversary ({@code ByzantineNetwork} in the core's tests), for a process: there is no
 * tick, so unprompted messages ride along with every k-th send, and what the adversary knows of its pillar (view,
 * highest sequence number, last stable checkpoint) it reads off its own outgoing messages. It holds only its own
 * keys ({@code auth} should be an {@code HmacAuthenticator} of this replica's {@code PbftKeys}): it re-MACs and
 * re-signs as itself, and cannot MAC or sign as another replica or a client. Envelopes claiming another sender are
 * not tried: the transport refuses to send them ({@code UNROUTABLE}); {@link ByzantineMode#REPLAYS} forges the
 * sender inside messages instead.
 *
 * <p><b>Determinism.</b> Each pillar has its own adversary, seeded from {@code seed} and the pillar number, so the same
 * sequence of sends on a pillar gives the same sequence of lies.
 *
 * <p><b>Slow leader.</b> {@link ByzantineMode#SLOW_LEADER} changes no envelope: it holds each PRE-PREPARE this replica
 * sends for {@link #slowLeaderDelayNanos} ({@link #SLOW_LEADER_TIMEOUT_FRACTION} of the request timeout) and then
 * sends it unchanged; everything else goes out at once. Each pillar holds at most {@link #slowLeaderBound} of them
 * (one per sequence number of its share of the watermark window); one more is sent at once, not queued.
 *
 * <p><b>Threads.</b> As {@link PillarNetwork}: {@link #send} is called only by the agent of the envelope's pillar, and
 * each pillar's adversary state is touched only there; the counters may be read from any thread. In
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

    /** Old envelopes and seen requests each pillar's adversary remembers (bounded). */
    static final int MEMORY = 256;
    /** Requests remembered for equivocation and lies. */
    static final int REQUESTS = 64;
    /**
     * How long {@link ByzantineMode#SLOW_LEADER} holds a PRE-PREPARE, as a fraction of the request (view-change)
     * timeout: 0.9, as Aardvark's slow primary stays just under the timeout, leaving a tenth of it for the PREPARE and
     * COMMIT rounds so that the instance still commits before the backups give up on it. View-change timeouts only
     * grow from {@code requestTimeoutTicks}, so the delay stays under every timeout of the protocol.
     */
    public static final double SLOW_LEADER_TIMEOUT_FRACTION = 0.9;

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
    private final PbftConfig config;
    private final Authenticator auth;
    private final Adversary[] adversaries;
    private final LongAdder changed = new LongAdder();
    private final LongAdder withheld = new LongAdder();
    private final LongAdder added = new LongAdder();
    private final LongAdder delayed = new LongAdder();
    /** The slow leader's held PRE-PREPAREs per pillar (its agent offers, the scheduler polls); null in other modes. */
    private final BoundedQueue<PbftEnvelope>[] held;
    private final long delayNanos;
    private final Scheduler scheduler;
    private volatile boolean closed;

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
        this(delegate, self, mode, config, tickNanos, auth, seed,
                mode == ByzantineMode.SLOW_LEADER ? timer("psmr-pbft-slow-leader-replica-" + self) : null);
    }

    /** As the public constructor, with the slow leader's {@code scheduler} given (null outside slow-leader mode). */
    ByzantinePillarNetwork(PillarNetwork delegate, int self, ByzantineMode mode, PbftConfig config, long tickNanos,
                           Authenticator auth, long seed, Scheduler scheduler) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.mode = Objects.requireNonNull(mode, "mode");
        this.config = Objects.requireNonNull(config, "config");
        this.auth = Objects.requireNonNull(auth, "auth");
        if (self < 0 || self >= config.replicaCount()) {
            throw new IllegalArgumentException("replica " + self + " is not one of the " + config.replicaCount());
        }
        if (tickNanos < 1) {
            throw new IllegalArgumentException("tickNanos must be at least 1: " + tickNanos);
        }
        this.self = self;
        this.adversaries = new Adversary[config.pillars()];
        for (int p = 0; p < adversaries.length; p++) {
            adversaries[p] = new Adversary(p, new Random(seed * 1_000_003L + p));
        }
        this.delayNanos = slowLeaderDelayNanos(config, tickNanos);
        if (mode == ByzantineMode.SLOW_LEADER) {
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
     * How long {@link ByzantineMode#SLOW_LEADER} holds each PRE-PREPARE: {@link #SLOW_LEADER_TIMEOUT_FRACTION} ×
     * {@code requestTimeoutTicks} × {@code tickNanos}.
     */
    public static long slowLeaderDelayNanos(PbftConfig config, long tickNanos) {
        return (long) (config.requestTimeoutTicks() * (double) tickNanos * SLOW_LEADER_TIMEOUT_FRACTION);
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
        if (envelope.from() != self || !mode.rewritesEnvelopes() || envelope.pillar() < 0
                || envelope.pillar() >= adversaries.length) {
            return delegate.send(envelope);
        }
        if (mode == ByzantineMode.SLOW_LEADER) {
            return envelope.message() instanceof PrePrepare ? hold(envelope) : delegate.send(envelope);
        }
        List<PbftEnvelope> out = adversaries[envelope.pillar()].rewrite(envelope);
        boolean ok = true;
        for (PbftEnvelope e : out) {
            ok &= delegate.send(e);
        }
        return ok;
    }

    /**
     * Holds {@code envelope} for {@link #slowLeaderDelayNanos}, or sends it at once if its pillar already holds
     * {@link #slowLeaderBound} or the network is closed. The pillar's agent thread.
     */
    private boolean hold(PbftEnvelope envelope) {
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

    /** One pillar's adversary: its random, what it remembers, what it saw of its pillar. Single-threaded. */
    private final class Adversary {
        private final int pillar;
        private final Random random;
        private final List<Request> seenRequests = new ArrayList<>();
        private final List<PbftEnvelope> sentByMe = new ArrayList<>();
        private long sends;
        private long view;
        private long highestSeq;
        private long stableSeq;

        Adversary(int pillar, Random random) {
            this.pillar = pillar;
            this.random = random;
        }

        List<PbftEnvelope> rewrite(PbftEnvelope e) {
            sends++;
            learn(e.message());
            List<PbftEnvelope> out = new ArrayList<>(2);
            PbftEnvelope instead = instead(e);
            if (instead == null) {
                withheld.increment();
            } else {
                if (instead != e) {
                    changed.increment();
                }
                out.add(instead);
                remember(instead);
            }
            PbftEnvelope extra = unprompted(e.to());
            if (extra != null) {
                added.increment();
                out.add(extra);
                remember(extra);
            }
            return out;
        }

        /** What is sent instead of {@code e}: {@code e} itself, another envelope, or null (nothing). */
        private PbftEnvelope instead(PbftEnvelope e) {
            PbftMessage m = e.message();
            switch (mode) {
                case SILENT:
                    return null;
                case EQUIVOCATING_LEADER:
                    if (m instanceof PrePrepare pp) {
                        int k = e.to() < self ? e.to() : e.to() - 1; // 0..n-2 among the others
                        int variant = (int) Math.floorMod(k + pp.seq() + pp.view(), 3L);
                        if (variant == 0) {
                            return e;
                        }
                        if (variant == 2) {
                            return null;
                        }
                        Request other = otherRequest(pp.request());
                        if (other == null && pp.request() == null) {
                            return null;
                        }
                        return seal(e, other == null ? PrePrepare.empty(pp.view(), pp.seq())
                                : new PrePrepare(pp.view(), pp.seq(), other.digest(), other));
                    }
                    return e;
                case FORGED_MACS: {
                    double r = random.nextDouble();
                    if (r < 0.2) {
                        byte[] mac = e.mac();
                        mac[random.nextInt(mac.length)] ^= 1;
                        return new PbftEnvelope(e.from(), e.to(), e.pillar(), m, mac);
                    }
                    if (r < 0.3) {
                        return new PbftEnvelope(e.from(), e.to(), e.pillar(), m, new byte[0]);
                    }
                    if (r < 0.5 && m instanceof Request q) {
                        return seal(e, withGarbageMacs(q));
                    }
                    if (r < 0.5 && m instanceof PrePrepare pp && pp.request() != null) {
                        return seal(e, new PrePrepare(pp.view(), pp.seq(), pp.digest(), withGarbageMacs(pp.request())));
                    }
                    return e;
                }
                case WRONG_DIGESTS:
                    if (random.nextBoolean()) {
                        return e;
                    }
                    if (m instanceof PrePrepare pp) {
                        if (pp.request() != null && random.nextBoolean()) {
                            // The payload changed: the digest matches it, the client MACs do not.
                            Request q = pp.request();
                            Request changedRequest = new Request(q.client(), q.number(), randomBytes(q.payload().length + 1), q.macs());
                            return seal(e, new PrePrepare(pp.view(), pp.seq(), changedRequest.digest(), changedRequest));
                        }
                        return seal(e, new PrePrepare(pp.view(), pp.seq(), randomBytes(32), pp.request()));
                    }
                    if (m instanceof Prepare p) {
                        return seal(e, new Prepare(p.view(), p.seq(), randomBytes(32), p.replica()));
                    }
                    if (m instanceof Commit c) {
                        return seal(e, new Commit(c.view(), c.seq(), randomBytes(32), c.replica()));
                    }
                    return e;
                case REPLAYS:
                    // A PREPARE or COMMIT that claims to be another replica's, under this replica's own (valid) MAC.
                    if (m instanceof Prepare p && random.nextInt(4) == 0) {
                        return seal(e, new Prepare(p.view(), p.seq(), p.digest(), otherThan(e.to())));
                    }
                    if (m instanceof Commit c && random.nextInt(4) == 0) {
                        return seal(e, new Commit(c.view(), c.seq(), c.digest(), otherThan(e.to())));
                    }
                    return e;
                case LYING_VIEW_CHANGE:
                    if (m instanceof ViewChange vc) {
                        return seal(e, lie(vc.newView(), vc.stableSeq()));
                    }
                    return e;
                case WRONG_CHECKPOINTS:
                    if (m instanceof Checkpoint c) {
                        // A consistent lie: the same wrong digest for a checkpoint to everyone (its own signed vote).
                        return seal(e, Checkpoint.signed(c.seq(), wrongDigest(c.seq()), c.replica(), auth));
                    }
                    return e;
                default:
                    return e;
            }
        }

        /** What rides along with the {@code sends}-th send to {@code to}, or null. */
        private PbftEnvelope unprompted(int to) {
            switch (mode) {
                case FORGED_MACS:
                    if (sends % 16 == 0) {
                        // A request no client sent; the adversary cannot compute client MACs.
                        return seal(to, new Request(1_000_000 + random.nextInt(4), 1 + random.nextInt(1000), randomBytes(8),
                                garbageMacs()));
                    }
                    return null;
                case REPLAYS:
                    if (sends % 3 == 0 && !sentByMe.isEmpty()) {
                        return sentByMe.get(random.nextInt(sentByMe.size())); // its genuine old envelope, verbatim
                    }
                    return null;
                case LYING_VIEW_CHANGE:
                    return sends % 64 == 0 ? seal(to, lie(view + 1, stableSeq)) : null;
                case WRONG_CHECKPOINTS: {
                    if (sends % 32 != 0) {
                        return null;
                    }
                    long k = config.checkpointInterval();
                    int which = random.nextInt(3);
                    if (which == 0) {
                        long far = stableSeq + k * (config.watermarkWindow() / k + 2 + random.nextInt(4));
                        return seal(to, Checkpoint.signed(far, randomBytes(32), self, auth));
                    }
                    if (which == 1 && k > 1) {
                        return seal(to, Checkpoint.signed(stableSeq + 1, randomBytes(32), self, auth));
                    }
                    return seal(to, new Checkpoint(stableSeq + k, randomBytes(32), self, randomBytes(64)));
                }
                case FOREIGN_EMPTIES: {
                    if (sends % 8 != 0) {
                        return null;
                    }
                    long np = config.pillars();
                    long s = firstAbove(Math.max(highestSeq, stableSeq)) + np * random.nextInt(4);
                    if (np > 1 && random.nextBoolean()) {
                        return seal(to, PrePrepare.empty(view, s + 1)); // an instance of another pillar
                    }
                    return config.leader(s, view) != self ? seal(to, PrePrepare.empty(view, s)) : null;
                }
                default:
                    return null;
            }
        }

        /** A VIEW-CHANGE for {@code newView}, signed by this replica, with one lie a correct replica detects. */
        private ViewChange lie(long newView, long stable) {
            long np = config.pillars();
            long seq = firstAbove(stable);
            Request request = seenRequests.isEmpty() ? null : seenRequests.get(random.nextInt(seenRequests.size()));
            long pView = Math.max(0, newView - 1);
            PrePrepare pp = request == null ? PrePrepare.empty(pView, seq) : new PrePrepare(pView, seq, request.digest(), request);
            List<PrePrepare> prepared = new ArrayList<>(List.of(pp));
            List<PrePrepared> prePrepared = new ArrayList<>(List.of(new PrePrepared(seq, pView, pp.digest())));
            switch (random.nextInt(7)) {
                case 0 -> { // P entry at the new view itself
                    PrePrepare at = request == null ? PrePrepare.empty(newView, seq) : new PrePrepare(newView, seq, request.digest(), request);
                    prepared.set(0, at);
                    prePrepared.set(0, new PrePrepared(seq, newView, at.digest()));
                }
                case 1 -> prepared.add(PrePrepare.empty(pView, seq)); // two P entries for one sequence number
                case 2 -> prePrepared.add(new PrePrepared(seq, pView, pp.digest())); // a Q entry twice
                case 3 -> { // a P entry beyond the watermark window
                    long out = seq + np * (config.watermarkWindow() / np + 1);
                    PrePrepare far = PrePrepare.empty(pView, out);
                    prepared.set(0, far);
                    prePrepared.set(0, new PrePrepared(out, pView, far.digest()));
                }
                case 4 -> { // a stable checkpoint "proved" by too few CHECKPOINTs, the others' signatures made up
                    long k = config.checkpointInterval();
                    long at = (stable / k + 1) * k;
                    byte[] junk = randomBytes(32);
                    List<Checkpoint> proof = new ArrayList<>();
                    for (int r = 0; r < config.replicaCount() && proof.size() < 2 * config.f(); r++) {
                        proof.add(r == self ? Checkpoint.signed(at, junk, r, auth) : new Checkpoint(at, junk, r, randomBytes(64)));
                    }
                    return ViewChange.signed(pillar, newView, at, proof, List.of(), List.of(), self, auth);
                }
                case 5 -> { // its own signature made up
                    return ViewChange.signed(pillar, newView, stable, List.of(), prepared, prePrepared, self, auth)
                            .withSignature(randomBytes(64));
                }
                default -> { // a P entry whose digest is not its request's
                    PrePrepare bad = new PrePrepare(pView, seq, randomBytes(32), request);
                    prepared.set(0, bad);
                    prePrepared.set(0, new PrePrepared(seq, pView, bad.digest()));
                }
            }
            return ViewChange.signed(pillar, newView, stable, List.of(), prepared, prePrepared, self, auth);
        }

        private void learn(PbftMessage m) {
            Request r = m instanceof Request q ? q : m instanceof PrePrepare pp ? pp.request() : null;
            if (r != null && !seenRequests.contains(r)) {
                if (seenRequests.size() >= REQUESTS) {
                    seenRequests.remove(0);
                }
                seenRequests.add(r);
            }
            if (m instanceof PrePrepare pp) {
                view = Math.max(view, pp.view());
                highestSeq = Math.max(highestSeq, pp.seq());
            } else if (m instanceof Prepare p) {
                view = Math.max(view, p.view());
                highestSeq = Math.max(highestSeq, p.seq());
            } else if (m instanceof Commit c) {
                view = Math.max(view, c.view());
                highestSeq = Math.max(highestSeq, c.seq());
            } else if (m instanceof ViewChange vc) {
                stableSeq = Math.max(stableSeq, vc.stableSeq());
            }
        }

        private Request otherRequest(Request not) {
            for (int i = seenRequests.size() - 1; i >= 0; i--) {
                Request r = seenRequests.get(i);
                if (not == null || !r.id().equals(not.id())) {
                    return r;
                }
            }
            return null;
        }

        private void remember(PbftEnvelope e) {
            if (sentByMe.size() >= MEMORY) {
                sentByMe.remove(0);
            }
            sentByMe.add(e);
        }

        private int otherThan(int excluded) {
            int r;
            do {
                r = random.nextInt(config.replicaCount());
            } while (r == excluded || r == self);
            return r;
        }

        /** The first sequence number of this pillar above {@code x}. */
        private long firstAbove(long x) {
            long np = config.pillars();
            long c = x + 1 + Math.floorMod(pillar - (x + 1), np);
            return c < 1 ? c + np : c;
        }

        private PbftEnvelope seal(PbftEnvelope like, PbftMessage m) {
            return PbftEnvelope.seal(self, like.to(), like.pillar(), m, auth);
        }

        private PbftEnvelope seal(int to, PbftMessage m) {
            return PbftEnvelope.seal(self, to, pillar, m, auth);
        }

        private Request withGarbageMacs(Request q) {
            return new Request(q.client(), q.number(), q.payload(), garbageMacs());
        }

        private List<byte[]> garbageMacs() {
            List<byte[]> macs = new ArrayList<>();
            for (int r = 0; r < config.replicaCount(); r++) {
                macs.add(randomBytes(32));
            }
            return macs;
        }

        private byte[] randomBytes(int length) {
            byte[] b = new byte[length];
            random.nextBytes(b);
            return b;
        }
    }

    /** The wrong state digest this replica claims for checkpoint {@code seq}: the same at every receiver. */
    static byte[] wrongDigest(long seq) {
        return PbftDigests.sha256(("wrong checkpoint " + seq).getBytes(StandardCharsets.US_ASCII));
    }
}
