package io.psmr.ordering.pbft.byzantine;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftDigests;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftMessage;
import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;

/**
 * One Byzantine replica's attack ({@link ByzantineBehaviour}) as a transformation of the envelopes it sends: given one
 * envelope its pillars made, {@link #send} says what goes on the wire instead ({@link Outgoing}): the envelope itself,
 * another one, nothing, envelopes it adds, and envelopes to hold back until a later tick.
 * <b>A testing and demonstration tool, never for production.</b>
 *
 * <p><b>Pure and clock-free</b>, as the protocol cores are: it reads no clock, does no I/O and sends nothing itself. What
 * it decides depends only on the envelopes it is shown ({@link #send}, {@link #heard}), the ticks it is given and its
 * seeded {@link Random}, so the same inputs give the same output. Two drivers use it: {@link ByzantinePillarNetwork} in
 * a replica process (ticks from the wall clock, held envelopes sent by its timer thread), and the simulated network of
 * the core's Byzantine campaign (ticks from the simulated clock).
 *
 * <p><b>What it knows</b> of each pillar (its view, highest sequence number and stable checkpoint) it reads off the
 * envelopes it sends; client requests it learns from what it sends and hears. It remembers its last {@value #MEMORY}
 * envelopes sent and {@value #REQUESTS} requests. What it sends unprompted (made-up requests, replays, lying
 * VIEW-CHANGEs, CHECKPOINTs, EMPTY pre-prepares, NEW-VIEWs) rides along with every k-th envelope of a pillar, to that
 * envelope's receiver (k per behaviour), so it needs no timer.
 *
 * <p><b>Keys.</b> It holds one {@link Authenticator}, its replica's own: it MACs and signs only as itself (a
 * {@code HmacAuthenticator} of its own {@code PbftKeys}, or in a simulation a {@code ChecksumAuthenticator} that signs
 * only for it), and never claims another sender on an envelope. Anything it claims on another's behalf is refused.
 *
 * <p><b>Threads.</b> Not thread-safe: one thread at a time. {@link ByzantinePillarNetwork} gives each pillar its own
 * adversary, used only on that pillar's agent thread.
 */
public final class Adversary {

    /** Old envelopes remembered for replays (bounded). */
    public static final int MEMORY = 256;
    /** Requests remembered for equivocation and lies (bounded). */
    public static final int REQUESTS = 64;
    /**
     * How long {@link ByzantineBehaviour#SLOW_LEADER} holds a PRE-PREPARE, as a fraction of the request (view-change)
     * timeout: 0.9, as Aardvark's slow primary stays just under the timeout, leaving a tenth of it for the PREPARE and
     * COMMIT rounds so that the instance still commits before the backups give up on it. View-change timeouts only grow
     * from {@code requestTimeoutTicks}, so the delay stays under every timeout of the protocol.
     */
    public static final double SLOW_LEADER_TIMEOUT_FRACTION = 0.9;

    /**
     * What goes on the wire for one envelope the replica sent.
     *
     * @param now      envelopes to send at once, in order
     * @param held     envelopes to send later ({@link ByzantineBehaviour#SLOW_LEADER})
     * @param changed  whether the envelope was replaced by another
     * @param withheld whether the envelope is not sent at all
     * @param added    how many envelopes the replica's pillars never made ride along
     */
    public record Outgoing(List<PbftEnvelope> now, List<Held> held, boolean changed, boolean withheld, int added) {
        public Outgoing {
            now = List.copyOf(now);
            held = List.copyOf(held);
        }
    }

    /** An envelope to send once the driver's clock reaches {@code untilTick}, after those held before it. */
    public record Held(PbftEnvelope envelope, long untilTick) {
    }

    /** A {@link ByzantineBehaviour#SPLITTING_LEADER}'s instance, pre-prepared at two correct replicas only. */
    private record Split(int pillar, long view, long seq) {
    }

    private final ByzantineBehaviour behaviour;
    private final int self;
    private final List<Integer> correct;
    private final PbftConfig config;
    private final Authenticator own;
    private final Random random;
    private final List<Request> seenRequests = new ArrayList<>();
    private final List<PbftEnvelope> sentByMe = new ArrayList<>();
    private final Set<Split> splits = new HashSet<>();
    /** Per pillar: envelopes sent, and what the adversary read off them. */
    private final long[] sends;
    private final long[] view;
    private final long[] highestSeq;
    private final long[] stableSeq;

    /** An adversary that takes every other replica for correct (a process knows no better). */
    public Adversary(ByzantineBehaviour behaviour, int self, PbftConfig config, Authenticator own, Random random) {
        this(behaviour, self, others(config, self), config, own, random);
    }

    /**
     * @param behaviour what it does
     * @param self      its replica's id
     * @param correct   the replicas it takes for correct, in id order: the one an equivocating leader of f &gt; 1 sets
     *                  apart and the two a splitting leader pre-prepares at are chosen among them
     * @param config    the cluster's PBFT configuration
     * @param own       its replica's own keys: MACs and signatures as itself only
     * @param random    its seeded choices
     */
    public Adversary(ByzantineBehaviour behaviour, int self, List<Integer> correct, PbftConfig config, Authenticator own,
                     Random random) {
        this.behaviour = Objects.requireNonNull(behaviour, "behaviour");
        this.config = Objects.requireNonNull(config, "config");
        this.own = Objects.requireNonNull(own, "own");
        this.random = Objects.requireNonNull(random, "random");
        if (self < 0 || self >= config.replicaCount()) {
            throw new IllegalArgumentException("replica " + self + " is not one of the " + config.replicaCount());
        }
        if (correct.isEmpty() || correct.contains(self)) {
            throw new IllegalArgumentException("correct replicas " + correct + " must be some others than " + self);
        }
        this.self = self;
        this.correct = List.copyOf(correct);
        int np = config.pillars();
        this.sends = new long[np];
        this.view = new long[np];
        this.highestSeq = new long[np];
        this.stableSeq = new long[np];
    }

    private static List<Integer> others(PbftConfig config, int self) {
        List<Integer> others = new ArrayList<>();
        for (int r = 0; r < config.replicaCount(); r++) {
            if (r != self) {
                others.add(r);
            }
        }
        return others;
    }

    /**
     * How many ticks {@link ByzantineBehaviour#SLOW_LEADER} holds each PRE-PREPARE: {@link #SLOW_LEADER_TIMEOUT_FRACTION}
     * of {@code requestTimeoutTicks}, at least 1.
     */
    public static long slowLeaderDelayTicks(PbftConfig config) {
        return Math.max(1, (long) (config.requestTimeoutTicks() * SLOW_LEADER_TIMEOUT_FRACTION));
    }

    /** The wrong state digest {@link ByzantineBehaviour#WRONG_CHECKPOINTS} claims for checkpoint {@code seq}: the same at every receiver. */
    public static byte[] wrongDigest(long seq) {
        return PbftDigests.sha256(("wrong checkpoint " + seq).getBytes(StandardCharsets.US_ASCII));
    }

    /** What it does. */
    public ByzantineBehaviour behaviour() {
        return behaviour;
    }

    /** Shows it an envelope another replica sent it: it learns the client request inside, if any. */
    public void heard(PbftEnvelope e) {
        learnRequest(e.message());
    }

    /**
     * What goes on the wire for {@code e}, an envelope of this replica's pillar {@code e.pillar()}, sent at {@code tick}
     * of the driver's clock. Envelopes of another sender, or of no pillar of the configuration, go out unchanged.
     */
    public Outgoing send(PbftEnvelope e, long tick) {
        if (e.from() != self || e.pillar() < 0 || e.pillar() >= sends.length) {
            return new Outgoing(List.of(e), List.of(), false, false, 0);
        }
        if (behaviour == ByzantineBehaviour.SLOW_LEADER) {
            return e.message() instanceof PrePrepare
                    ? new Outgoing(List.of(), List.of(new Held(e, tick + slowLeaderDelayTicks(config))), false, false, 0)
                    : new Outgoing(List.of(e), List.of(), false, false, 0);
        }
        int pillar = e.pillar();
        sends[pillar]++;
        learn(pillar, e.message());
        List<PbftEnvelope> now = new ArrayList<>(2);
        PbftEnvelope instead = instead(e);
        if (instead != null) {
            now.add(instead);
            remember(instead);
        }
        PbftEnvelope extra = unprompted(pillar, e.to());
        if (extra != null) {
            now.add(extra);
            remember(extra);
        }
        return new Outgoing(now, List.of(), instead != null && instead != e, instead == null, extra == null ? 0 : 1);
    }

    /**
     * For a {@link ByzantineBehaviour#SPLITTING_LEADER}'s instance (view, seq), the correct replica in {@code role}: role
     * 1 ("X") gets the PRE-PREPARE and the Byzantine COMMIT, role 2 ("Y") the PRE-PREPARE only, role 0 and every other
     * replica neither.
     */
    public int splitRole(int role, long view, long seq) {
        return correct.get((int) Math.floorMod(seq + view + role, (long) correct.size()));
    }

    /** Whether it, a {@link ByzantineBehaviour#SPLITTING_LEADER}, pre-prepared (view, seq) of {@code pillar} at X and Y only. */
    public boolean split(int pillar, long view, long seq) {
        return splits.contains(new Split(pillar, view, seq));
    }

    /** What is sent instead of {@code e}: {@code e} itself, another envelope, or null (nothing). */
    private PbftEnvelope instead(PbftEnvelope e) {
        PbftMessage m = e.message();
        switch (behaviour) {
            case SILENT:
                return null;
            case EQUIVOCATING_LEADER:
                return m instanceof PrePrepare pp ? equivocate(e, pp) : e;
            case SPLITTING_LEADER:
                if (m instanceof PrePrepare pp) {
                    if (e.to() != splitRole(1, pp.view(), pp.seq()) && e.to() != splitRole(2, pp.view(), pp.seq())) {
                        return null; // only X and Y get it (with n = 4 that leaves out one correct replica)
                    }
                    splits.add(new Split(e.pillar(), pp.view(), pp.seq()));
                    return e;
                }
                if (m instanceof Commit c && split(e.pillar(), c.view(), c.seq())) {
                    return e.to() == splitRole(1, c.view(), c.seq()) ? e : null;
                }
                if (m instanceof ViewChange vc) {
                    // Hides its P and Q sets: a lie by omission, undetectable and harmless with 2f+1 quorums.
                    return seal(e, ViewChange.signed(e.pillar(), vc.newView(), vc.stableSeq(), vc.stableProof(),
                            List.of(), List.of(), vc.replica(), own));
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
                        Request changed = new Request(q.client(), q.number(), randomBytes(q.payload().length + 1), q.macs());
                        return seal(e, new PrePrepare(pp.view(), pp.seq(), changed.digest(), changed));
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
                return m instanceof ViewChange vc ? seal(e, lie(e.pillar(), vc.newView())) : e;
            case LYING_PREPARED:
                if (m instanceof PrePrepare) {
                    return null; // a silent leader forces the view changes its lies are for
                }
                return m instanceof ViewChange vc ? seal(e, falselyPrepared(e.pillar(), vc)) : e;
            case FORGED_NEW_VIEW:
                if (m instanceof PrePrepare) {
                    return null; // a silent leader forces view changes, some to views it leads
                }
                if (m instanceof NewView nv && random.nextBoolean()) {
                    return seal(e, unfoundedChoices(e.pillar(), nv));
                }
                return e;
            case WRONG_CHECKPOINTS:
                if (m instanceof Checkpoint c) {
                    // A consistent lie: the same wrong digest for a checkpoint to everyone (its own signed vote).
                    return seal(e, Checkpoint.signed(c.seq(), wrongDigest(c.seq()), c.replica(), own));
                }
                return e;
            default:
                return e;
        }
    }

    /**
     * An equivocating leader's PRE-PREPARE for {@code e.to()}: among the n-1 others by turn the request, another value,
     * or nothing; with f &gt; 1, at every other instance, another value to one correct replica only.
     */
    private PbftEnvelope equivocate(PbftEnvelope e, PrePrepare pp) {
        int k = e.to() < self ? e.to() : e.to() - 1; // 0..n-2 among the others
        int variant = (int) Math.floorMod(k + pp.seq() + pp.view(), 3L);
        if (config.f() > 1 && Math.floorMod(pp.seq() / config.pillars() + pp.view(), 2L) == 0) {
            // One correct replica alone gets another value; the request prepares at the rest (at least f+1 correct),
            // so the lone one must learn the decision from COMMITs.
            variant = e.to() == correct.get((int) Math.floorMod(pp.seq() + pp.view(), (long) correct.size())) ? 1 : 0;
        }
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

    /** What rides along with the k-th envelope of {@code pillar}, to {@code to}; or null. */
    private PbftEnvelope unprompted(int pillar, int to) {
        long n = sends[pillar];
        switch (behaviour) {
            case FORGED_MACS:
                if (n % 16 == 0) {
                    // A request no client sent; the adversary cannot compute client MACs.
                    return seal(to, pillar, new Request(1_000_000 + random.nextInt(4), 1 + random.nextInt(1000),
                            randomBytes(8), garbageMacs()));
                }
                return null;
            case REPLAYS:
                if (n % 3 == 0 && !sentByMe.isEmpty()) {
                    return sentByMe.get(random.nextInt(sentByMe.size())); // its genuine old envelope, verbatim
                }
                return null;
            case LYING_VIEW_CHANGE:
                return n % 64 == 0 ? seal(to, pillar, lie(pillar, view[pillar] + 1)) : null;
            case WRONG_CHECKPOINTS: {
                if (n % 32 != 0) {
                    return null;
                }
                long k = config.checkpointInterval();
                long stable = stableSeq[pillar];
                int which = random.nextInt(3);
                if (which == 0) {
                    long far = stable + k * (config.watermarkWindow() / k + 2 + random.nextInt(4));
                    return seal(to, pillar, Checkpoint.signed(far, randomBytes(32), self, own));
                }
                if (which == 1 && k > 1) {
                    return seal(to, pillar, Checkpoint.signed(stable + 1, randomBytes(32), self, own));
                }
                // A checkpoint with a made-up signature.
                return seal(to, pillar, new Checkpoint(stable + k, randomBytes(32), self, randomBytes(64)));
            }
            case FORGED_NEW_VIEW:
                return n % 16 == 0 ? seal(to, pillar, madeUpNewView(pillar)) : null;
            case FOREIGN_EMPTIES: {
                if (n % 8 != 0) {
                    return null;
                }
                long np = config.pillars();
                long v = view[pillar];
                long s = firstAbove(Math.max(highestSeq[pillar], stableSeq[pillar]), pillar) + np * random.nextInt(4);
                if (np > 1 && random.nextBoolean()) {
                    return seal(to, pillar, PrePrepare.empty(v, s + 1)); // an instance of another pillar
                }
                return config.leader(s, v) != self ? seal(to, pillar, PrePrepare.empty(v, s)) : null;
            }
            default:
                return null;
        }
    }

    /** A VIEW-CHANGE for {@code newView} of {@code pillar}, signed by this replica, with a lie a correct replica detects. */
    private ViewChange lie(int pillar, long newView) {
        List<Lie> lies = Lie.detectable();
        Lie lie = lies.get(random.nextInt(lies.size()));
        Request request = seenRequests.isEmpty() ? null : seenRequests.get(random.nextInt(seenRequests.size()));
        return lie.viewChange(config, self, pillar, newView, request, randomBytes(32), own);
    }

    /**
     * This replica's own VIEW-CHANGE with made-up P and Q entries: for its first instances above h, "prepared" at view
     * newView-1 another request it saw (or EMPTY). Signed by itself, so accepted; rule A never adopts it without f+1
     * backing Q entries.
     */
    private ViewChange falselyPrepared(int pillar, ViewChange vc) {
        List<PrePrepare> prepared = new ArrayList<>();
        List<PrePrepared> prePrepared = new ArrayList<>();
        long np = config.pillars();
        long s = firstAbove(vc.stableSeq(), pillar);
        for (int i = 0; i < 3 && s <= vc.stableSeq() + config.watermarkWindow(); i++, s += np) {
            Request other = seenRequests.isEmpty() || random.nextInt(3) == 0 ? null
                    : seenRequests.get(random.nextInt(seenRequests.size()));
            PrePrepare pp = other == null ? PrePrepare.empty(vc.newView() - 1, s)
                    : new PrePrepare(vc.newView() - 1, s, other.digest(), other);
            prepared.add(pp);
            prePrepared.add(new PrePrepared(s, vc.newView() - 1, pp.digest()));
        }
        return ViewChange.signed(pillar, vc.newView(), vc.stableSeq(), vc.stableProof(), prepared, prePrepared,
                vc.replica(), own);
    }

    /** A NEW-VIEW for the next view this replica leads, of VIEW-CHANGEs it made up (others' signatures forged). */
    private NewView madeUpNewView(int pillar) {
        long v = view[pillar] + 1;
        while (config.primary(v) != self) {
            v++;
        }
        List<ViewChange> madeUp = new ArrayList<>();
        for (int r = 0; r < config.replicaCount() && madeUp.size() < config.quorum(); r++) {
            madeUp.add(r == self ? ViewChange.signed(pillar, v, 0, List.of(), List.of(), List.of(), r, own)
                    : new ViewChange(v, 0, List.of(), List.of(), List.of(), r, randomBytes(16)));
        }
        return new NewView(v, madeUp, List.of(), self);
    }

    /**
     * Its real NEW-VIEW (from genuine VIEW-CHANGEs) with choices rules A/B do not allow: every re-proposal EMPTY (or one
     * EMPTY added), or one VIEW-CHANGE dropped and another counted twice.
     */
    private NewView unfoundedChoices(int pillar, NewView nv) {
        if (random.nextBoolean() && nv.viewChanges().size() > 1) {
            List<ViewChange> vcs = new ArrayList<>(nv.viewChanges());
            vcs.set(0, vcs.get(1));
            return new NewView(nv.view(), vcs, nv.prePrepares(), nv.replica());
        }
        List<PrePrepare> empties = new ArrayList<>();
        for (PrePrepare pp : nv.prePrepares()) {
            empties.add(PrePrepare.empty(pp.view(), pp.seq()));
        }
        if (nv.prePrepares().stream().allMatch(PrePrepare::isEmpty)) {
            long h = stableSeq[pillar];
            long last = empties.isEmpty() ? h : empties.get(empties.size() - 1).seq();
            empties.add(PrePrepare.empty(nv.view(), firstAbove(Math.max(h, last), pillar)));
        }
        return new NewView(nv.view(), nv.viewChanges(), empties, nv.replica());
    }

    private void learn(int pillar, PbftMessage m) {
        learnRequest(m);
        if (m instanceof PrePrepare pp) {
            view[pillar] = Math.max(view[pillar], pp.view());
            highestSeq[pillar] = Math.max(highestSeq[pillar], pp.seq());
        } else if (m instanceof Prepare p) {
            view[pillar] = Math.max(view[pillar], p.view());
            highestSeq[pillar] = Math.max(highestSeq[pillar], p.seq());
        } else if (m instanceof Commit c) {
            view[pillar] = Math.max(view[pillar], c.view());
            highestSeq[pillar] = Math.max(highestSeq[pillar], c.seq());
        } else if (m instanceof NewView nv) {
            view[pillar] = Math.max(view[pillar], nv.view());
        } else if (m instanceof ViewChange vc) {
            stableSeq[pillar] = Math.max(stableSeq[pillar], vc.stableSeq());
        }
    }

    private void learnRequest(PbftMessage m) {
        Request r = m instanceof Request q ? q : m instanceof PrePrepare pp ? pp.request() : null;
        if (r != null && !seenRequests.contains(r)) {
            if (seenRequests.size() >= REQUESTS) {
                seenRequests.remove(0);
            }
            seenRequests.add(r);
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

    /** The first sequence number of {@code pillar} above {@code x}. */
    private long firstAbove(long x, int pillar) {
        long np = config.pillars();
        long c = x + 1 + Math.floorMod(pillar - (x + 1), np);
        return c < 1 ? c + np : c;
    }

    private PbftEnvelope seal(PbftEnvelope like, PbftMessage m) {
        return PbftEnvelope.seal(self, like.to(), like.pillar(), m, own);
    }

    private PbftEnvelope seal(int to, int pillar, PbftMessage m) {
        return PbftEnvelope.seal(self, to, pillar, m, own);
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
