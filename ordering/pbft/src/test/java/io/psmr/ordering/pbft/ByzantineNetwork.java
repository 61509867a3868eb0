package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import io.psmr.ordering.pbft.byzantine.ByzantinePillarNetwork;
import io.psmr.ordering.protocol.sim.SimulatedNetwork;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A {@link SimulatedNetwork} of envelopes in which each of 1 to f replicas follows a {@link ByzantineBehaviour}
 * ({@link #behaviours}): their outgoing envelopes are rewritten, dropped or multiplied in {@link #transmit}, and in
 * {@link #tick} they send what no correct replica would. Each adversary acts alone and as itself: it MACs and signs
 * only as its own replica, and its decisions use its own seeded random, so a seed and an assignment of behaviours
 * always give the same run. Envelopes between two adversaries travel like any other (each rewrites what it sends).
 */
class ByzantineNetwork extends SimulatedNetwork<PbftEnvelope> {

    /**
     * Lies in a VIEW-CHANGE (signed by the liar: it can sign only as itself). All but
     * {@link #FALSE_PREPARED} are detectable and refused on their own with {@link #refusal()}.
     * {@link #FALSE_PREPARED} is a lie about the liar's own state (a prepared value at a high view it
     * never prepared): nobody can detect it, and rule A makes it harmless (it needs f+1 Q entries).
     */
    enum Lie {
        P_DIGEST_NOT_REQUEST, P_VIEW_NOT_BELOW_NEW_VIEW, Q_VIEW_NOT_BELOW_NEW_VIEW, TWO_P_ENTRIES_ONE_SEQ,
        DUPLICATE_Q_ENTRY, BAD_STABLE_PROOF, OUTSIDE_WINDOW, OTHER_PILLAR,
        /** A stable checkpoint "proved" by 2f+1 CHECKPOINTs, the others' signatures made up. */
        FORGED_STABLE_PROOF,
        /** The VIEW-CHANGE's own signature made up (as if another replica's VIEW-CHANGE were altered). */
        FORGED_SIGNATURE,
        /** Claims to have prepared (and pre-prepared) a value at view newView-1 that it never did. */
        FALSE_PREPARED;

        /** How a correct replica refuses the lie on its own; null: it cannot (and need not). */
        Refusal refusal() {
            return switch (this) {
                case FALSE_PREPARED -> null;
                case FORGED_SIGNATURE -> Refusal.BAD_SIGNATURE;
                default -> Refusal.BAD_VIEW_CHANGE;
            };
        }

        /** The lies a correct replica refuses. */
        static List<Lie> detectable() {
            return List.of(values()).stream().filter(l -> l.refusal() != null).toList();
        }
    }

    private static final int RING = 256;
    /** How long the colluding network holds back a PREPARE/COMMIT of a split instance: well past a view change. */
    private static final int HOLD_TICKS = 200;

    /** An instance a {@link ByzantineBehaviour#SPLITTING_LEADER} pre-prepared at some correct replicas only. */
    private record Split(int pillar, long view, long seq) {
    }

    private record Held(long at, PbftEnvelope envelope) {
    }

    /** The Byzantine replicas by id, in id order (ticks and draws go in this order). */
    private final java.util.SortedMap<Integer, Adversary> adversaries = new java.util.TreeMap<>();
    /** The replicas that are not Byzantine, in id order. */
    private final List<Integer> correct = new ArrayList<>();
    private final PbftConfig config;
    private final Authenticator auth;
    private long now;
    private boolean healed;
    private final List<Held> held = new ArrayList<>();

    /** One Byzantine replica, {@code byzantine}, following {@code behaviour}. */
    ByzantineNetwork(Random random, int byzantine, ByzantineBehaviour behaviour, PbftConfig config, Authenticator auth) {
        this(random, Map.of(byzantine, behaviour), config, auth);
    }

    /**
     * Replicas {@code behaviours.keySet()} (1 to f of them) Byzantine, each following its behaviour. Each
     * adversary's random is drawn from {@code random}, in id order.
     */
    ByzantineNetwork(Random random, Map<Integer, ByzantineBehaviour> behaviours, PbftConfig config, Authenticator auth) {
        super(random, PbftEnvelope::from, PbftEnvelope::to);
        if (behaviours.isEmpty() || behaviours.size() > config.f()) {
            throw new IllegalArgumentException(behaviours.size() + " Byzantine replicas; the model allows 1 to f = " + config.f());
        }
        this.config = config;
        this.auth = auth;
        new java.util.TreeMap<>(behaviours).forEach((id, behaviour) -> {
            if (id < 0 || id >= config.replicaCount()) {
                throw new IllegalArgumentException("no replica " + id + " among " + config.replicaCount());
            }
            adversaries.put(id, new Adversary(id, behaviour, new Random(random.nextLong())));
        });
        for (int r = 0; r < config.replicaCount(); r++) {
            if (!adversaries.containsKey(r)) {
                correct.add(r);
            }
        }
    }

    /** Gives each adversary its replica's pillars, whose views and watermarks it reads, and marks it Byzantine. */
    void attach(PbftCluster cluster) {
        for (Adversary a : adversaries.values()) {
            a.pillars = cluster.replicas[a.id].pillars;
            cluster.byzantine.add(a.id);
        }
    }

    /** The Byzantine replicas and what each does. */
    Map<Integer, ByzantineBehaviour> behaviours() {
        Map<Integer, ByzantineBehaviour> m = new java.util.TreeMap<>();
        adversaries.forEach((id, a) -> m.put(id, a.behaviour));
        return m;
    }

    @Override
    public void transmit(PbftEnvelope e, long now) {
        Adversary from = adversaries.get(e.from());
        if (from == null) {
            Adversary to = adversaries.get(e.to());
            if (to != null) {
                remember(to.receivedByMe, e);
                to.learnRequests(e);
            }
            if (holdBack(e)) {
                held.add(new Held(now + HOLD_TICKS, e));
                return;
            }
            super.transmit(e, now);
            return;
        }
        from.learnRequests(e);
        for (PbftEnvelope out : from.rewrite(e)) {
            remember(from.sentByMe, out);
            if (from.behaviour == ByzantineBehaviour.SLOW_LEADER && out.message() instanceof PrePrepare) {
                // Released by tick in the order held: every one waits the same number of ticks.
                held.add(new Held(now + slowLeaderDelayTicks(config), out));
                from.delayed++;
                continue;
            }
            super.transmit(out, now);
        }
    }

    /**
     * How many ticks a {@link ByzantineBehaviour#SLOW_LEADER} holds each PRE-PREPARE: the process mode's
     * fraction ({@link ByzantinePillarNetwork#SLOW_LEADER_TIMEOUT_FRACTION}) of {@code requestTimeoutTicks},
     * at least 1.
     */
    static long slowLeaderDelayTicks(PbftConfig config) {
        return Math.max(1, (long) (config.requestTimeoutTicks() * ByzantinePillarNetwork.SLOW_LEADER_TIMEOUT_FRACTION));
    }

    /** PRE-PREPAREs that replica {@code byzantine}, a {@link ByzantineBehaviour#SLOW_LEADER}, held back so far. */
    long delayed(int byzantine) {
        Adversary a = adversaries.get(byzantine);
        return a == null ? 0 : a.delayed;
    }

    @Override
    public void heal() {
        super.heal();
        healed = true;
    }

    /**
     * The colluding network of a split instance: the PREPARE and COMMIT of the correct replica that
     * gets the Byzantine COMMIT ("X") to the other pre-prepared one ("Y") are held back, so Y does not
     * prepare before the view change. Only while the network is faulty.
     */
    private boolean holdBack(PbftEnvelope e) {
        if (healed) {
            return false;
        }
        long v;
        long s;
        if (e.message() instanceof Prepare p) {
            v = p.view();
            s = p.seq();
        } else if (e.message() instanceof Commit c) {
            v = c.view();
            s = c.seq();
        } else {
            return false;
        }
        for (Adversary a : adversaries.values()) {
            if (a.behaviour == ByzantineBehaviour.SPLITTING_LEADER && a.splits.contains(new Split(e.pillar(), v, s))
                    && e.from() == role(1, v, s) && e.to() == role(2, v, s)) {
                return true;
            }
        }
        return false;
    }

    /**
     * For a split instance, the correct replica in {@code role}: role 1 ("X") gets the pre-prepare and the Byzantine
     * COMMIT, role 2 ("Y") the pre-prepare only, role 0 and every other replica neither.
     */
    private int role(int role, long view, long seq) {
        return correct.get((int) Math.floorMod(seq + view + role, (long) correct.size()));
    }

    /** The correct replica that an {@link ByzantineBehaviour#EQUIVOCATING_LEADER} of f &gt; 1 sets apart at an instance. */
    private int loneDissenter(long view, long seq) {
        return correct.get((int) Math.floorMod(seq + view, (long) correct.size()));
    }

    @Override
    public void tick(long now) {
        this.now = now;
        for (java.util.Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.at() <= now) {
                it.remove();
                super.transmit(h.envelope(), now);
            }
        }
        for (Adversary a : adversaries.values()) {
            if (a.pillars != null) {
                a.tick();
            }
        }
    }

    /** Puts {@code e} on the wire now, past every adversary. */
    private void send(PbftEnvelope e) {
        super.transmit(e, now);
    }

    private static void remember(List<PbftEnvelope> ring, PbftEnvelope e) {
        if (ring.size() >= RING) {
            ring.remove(0);
        }
        ring.add(e);
    }

    /**
     * Builds a VIEW-CHANGE from {@code liar}, signed with {@code signer} (which may sign only as the
     * liar), whose single P entry (the pillar's first instance, view {@code newView - 1}, for
     * {@code request} or EMPTY, with its Q entry) is well formed except for {@code lie}.
     */
    static ViewChange lie(Lie lie, PbftConfig config, int liar, int pillar, long newView, Request request, byte[] junk,
                          Authenticator signer) {
        int f = config.f();
        long np = config.pillars();
        long seq = switch (lie) {
            case OUTSIDE_WINDOW -> config.firstSeq(pillar) + np * (config.watermarkWindow() / np + 1);
            case OTHER_PILLAR -> np > 1 ? config.firstSeq((pillar + 1) % (int) np)
                    : config.firstSeq(pillar) + np * (config.watermarkWindow() / np + 1);
            default -> config.firstSeq(pillar);
        };
        long pView = lie == Lie.P_VIEW_NOT_BELOW_NEW_VIEW ? newView : newView - 1;
        PrePrepare pp = request == null ? PrePrepare.empty(pView, seq) : new PrePrepare(pView, seq, request.digest(), request);
        if (lie == Lie.P_DIGEST_NOT_REQUEST) {
            pp = new PrePrepare(pView, seq, junk, request);
        }
        List<PrePrepare> prepared = new ArrayList<>(List.of(pp));
        if (lie == Lie.TWO_P_ENTRIES_ONE_SEQ) {
            prepared.add(PrePrepare.empty(pView, seq));
        }
        long qView = lie == Lie.Q_VIEW_NOT_BELOW_NEW_VIEW ? newView : pView;
        List<PrePrepared> prePrepared = new ArrayList<>(List.of(new PrePrepared(seq, qView, pp.digest())));
        if (lie == Lie.DUPLICATE_Q_ENTRY) {
            prePrepared.add(new PrePrepared(seq, qView, pp.digest()));
        }
        if (lie == Lie.BAD_STABLE_PROOF || lie == Lie.FORGED_STABLE_PROOF) {
            // A stable checkpoint "proved" by only 2f CHECKPOINTs, or by 2f+1 whose others' signatures are made up.
            long k = config.checkpointInterval();
            List<Checkpoint> proof = new ArrayList<>();
            for (int r = 0; r < config.replicaCount() && proof.size() < (lie == Lie.BAD_STABLE_PROOF ? 2 * f : 2 * f + 1); r++) {
                proof.add(r == liar ? Checkpoint.signed(k, junk, r, signer) : new Checkpoint(k, junk, r, PbftDigests.sha256(junk)));
            }
            return ViewChange.signed(pillar, newView, k, proof, List.of(), List.of(), liar, signer);
        }
        ViewChange vc = ViewChange.signed(pillar, newView, 0, List.of(), prepared, prePrepared, liar, signer);
        return lie == Lie.FORGED_SIGNATURE ? vc.withSignature(junk) : vc;
    }

    /** One Byzantine replica: what it does, its signer, its own random, and what it saw and sent. */
    private final class Adversary {
        final int id;
        final ByzantineBehaviour behaviour;
        /** Signs only as this replica: the adversary cannot sign as anyone else. */
        final Authenticator signer;
        final Random choices;
        PbftPillar[] pillars;
        final List<Request> seenRequests = new ArrayList<>();
        final List<PbftEnvelope> sentByMe = new ArrayList<>();
        final List<PbftEnvelope> receivedByMe = new ArrayList<>();
        final java.util.Set<Split> splits = new java.util.HashSet<>();
        /** PRE-PREPAREs a {@link ByzantineBehaviour#SLOW_LEADER} held back. */
        long delayed;

        Adversary(int id, ByzantineBehaviour behaviour, Random choices) {
            this.id = id;
            this.behaviour = behaviour;
            this.signer = ChecksumAuthenticator.signingOnlyFor(id);
            this.choices = choices;
        }

        /** What it sends unprompted at this tick. */
        void tick() {
            int p = choices.nextInt(config.pillars());
            PbftPillar pillar = pillars[p];
            switch (behaviour) {
                case FORGED_MACS -> {
                    if (now % 5 == 0) {
                        // A request no client sent; the adversary cannot compute client MACs.
                        Request forged = new Request(1000 + choices.nextInt(4), 1 + choices.nextInt(100), randomBytes(8),
                                garbageMacs());
                        multicast(p, forged);
                    }
                }
                case REPLAYS -> {
                    if (now % 2 == 0 && !sentByMe.isEmpty()) {
                        // An exact old envelope of its own: its MAC is genuine.
                        send(sentByMe.get(choices.nextInt(sentByMe.size())));
                    }
                    if (now % 2 == 1 && !receivedByMe.isEmpty()) {
                        // Another replica's message, re-enveloped under its own (valid) MAC.
                        PbftEnvelope old = receivedByMe.get(choices.nextInt(receivedByMe.size()));
                        send(PbftEnvelope.seal(id, otherThan(id), old.pillar(), old.message(), auth));
                    }
                }
                case LYING_VIEW_CHANGE -> {
                    if (now % 7 == 0) {
                        multicast(p, lie(pick(Lie.detectable()), p, pillar.view() + 1));
                    }
                }
                case WRONG_CHECKPOINTS -> {
                    if (now % 9 == 0) {
                        long k = config.checkpointInterval();
                        long far = pillar.lowWatermark() + k * (1 + choices.nextInt((int) (config.watermarkWindow() / k) + 4));
                        multicast(p, Checkpoint.signed(far, randomBytes(32), id, signer));
                        if (k > 1) {
                            multicast(p, Checkpoint.signed(pillar.lowWatermark() + 1, randomBytes(32), id, signer));
                        }
                        // A checkpoint with a made-up signature.
                        multicast(p, new Checkpoint(pillar.lowWatermark() + k, randomBytes(32), id, randomBytes(16)));
                    }
                }
                case FORGED_NEW_VIEW -> {
                    if (now % 11 == 0) {
                        multicast(p, madeUpNewView(p, pillar));
                    }
                }
                case EMPTY_NOT_OWNED -> {
                    if (now % 3 == 0) {
                        long np = config.pillars();
                        long view = pillar.view();
                        long s = firstAbove(pillar.lowWatermark(), p) + np * choices.nextInt((int) (config.watermarkWindow() / np));
                        if (config.leader(s, view) != id) {
                            multicast(p, PrePrepare.empty(view, s));
                        }
                        if (np > 1) {
                            multicast(p, PrePrepare.empty(view, s + 1)); // an instance of another pillar
                        }
                    }
                }
                default -> {
                }
            }
        }
        /** What this adversary sends instead of {@code e}. */
        List<PbftEnvelope> rewrite(PbftEnvelope e) {
            PbftMessage m = e.message();
            switch (behaviour) {
                case SILENT:
                    return List.of();
                case EQUIVOCATING_LEADER:
                    if (m instanceof PrePrepare pp) {
                        int k = e.to() < id ? e.to() : e.to() - 1; // 0..n-2 among the others
                        int variant = (int) Math.floorMod(k + pp.seq() + pp.view(), 3L);
                        if (config.f() > 1 && Math.floorMod(pp.seq() / config.pillars() + pp.view(), 2L) == 0) {
                            // One correct replica alone gets another value; the request prepares at the rest
                            // (at least f+1 correct), so the lone one must learn the decision from COMMITs.
                            variant = e.to() == loneDissenter(pp.view(), pp.seq()) ? 1 : 0;
                        }
                        if (variant == 0) {
                            return List.of(e);
                        }
                        if (variant == 2) {
                            return List.of();
                        }
                        Request other = otherRequest(pp.request());
                        if (other == null && pp.request() == null) {
                            return List.of();
                        }
                        PrePrepare alt = other == null ? PrePrepare.empty(pp.view(), pp.seq())
                                : new PrePrepare(pp.view(), pp.seq(), other.digest(), other);
                        return List.of(seal(e, alt));
                    }
                    return List.of(e);
                case SPLITTING_LEADER:
                    if (m instanceof PrePrepare pp) {
                        if (e.to() != role(1, pp.view(), pp.seq()) && e.to() != role(2, pp.view(), pp.seq())) {
                            return List.of(); // only X and Y get it (with n = 4 that leaves out one correct replica)
                        }
                        splits.add(new Split(e.pillar(), pp.view(), pp.seq()));
                        return List.of(e);
                    }
                    if (m instanceof Commit c && splits.contains(new Split(e.pillar(), c.view(), c.seq()))) {
                        return e.to() == role(1, c.view(), c.seq()) ? List.of(e) : List.of();
                    }
                    if (m instanceof ViewChange vc) {
                        // Hides its P and Q sets: a lie by omission, undetectable and harmless with 2f+1 quorums.
                        return List.of(seal(e, ViewChange.signed(e.pillar(), vc.newView(), vc.stableSeq(), vc.stableProof(),
                                List.of(), List.of(), vc.replica(), signer)));
                    }
                    return List.of(e);
                case FORGED_MACS: {
                    double r = choices.nextDouble();
                    if (r < 0.2) {
                        byte[] mac = e.mac();
                        mac[choices.nextInt(mac.length)] ^= 1;
                        return List.of(new PbftEnvelope(e.from(), e.to(), e.pillar(), m, mac));
                    }
                    if (r < 0.3) {
                        return List.of(new PbftEnvelope(e.from(), e.to(), e.pillar(), m, new byte[0]));
                    }
                    if (r < 0.4) {
                        // Impersonates another replica, but can only attach its own MAC.
                        return List.of(new PbftEnvelope(otherThan(e.to()), e.to(), e.pillar(), m, e.mac()));
                    }
                    if (r < 0.6 && m instanceof Request q) {
                        return List.of(seal(e, withGarbageMacs(q)));
                    }
                    if (r < 0.6 && m instanceof PrePrepare pp && pp.request() != null) {
                        return List.of(seal(e, new PrePrepare(pp.view(), pp.seq(), pp.digest(), withGarbageMacs(pp.request()))));
                    }
                    return List.of(e);
                }
                case WRONG_DIGESTS: {
                    if (choices.nextBoolean()) {
                        return List.of(e);
                    }
                    if (m instanceof PrePrepare pp) {
                        if (pp.request() != null && choices.nextBoolean()) {
                            // A request whose payload was changed: the digest matches it, the client MACs do not.
                            Request q = pp.request();
                            Request changed = new Request(q.client(), q.number(), randomBytes(q.payload().length + 1), q.macs());
                            return List.of(seal(e, new PrePrepare(pp.view(), pp.seq(), changed.digest(), changed)));
                        }
                        return List.of(seal(e, new PrePrepare(pp.view(), pp.seq(), randomBytes(32), pp.request())));
                    }
                    if (m instanceof Prepare p) {
                        return List.of(seal(e, new Prepare(p.view(), p.seq(), randomBytes(32), p.replica())));
                    }
                    if (m instanceof Commit c) {
                        return List.of(seal(e, new Commit(c.view(), c.seq(), randomBytes(32), c.replica())));
                    }
                    return List.of(e);
                }
                case LYING_VIEW_CHANGE:
                    if (m instanceof ViewChange vc) {
                        return List.of(seal(e, lie(pick(Lie.detectable()), e.pillar(), vc.newView())));
                    }
                    return List.of(e);
                case LYING_PREPARED:
                    if (m instanceof PrePrepare) {
                        return List.of(); // a silent leader forces the view changes its lies are for
                    }
                    if (m instanceof ViewChange vc) {
                        return List.of(seal(e, falselyPrepared(e.pillar(), vc)));
                    }
                    return List.of(e);
                case FORGED_NEW_VIEW:
                    if (m instanceof PrePrepare) {
                        return List.of(); // a silent leader forces view changes, some to views it leads
                    }
                    if (m instanceof NewView nv && choices.nextBoolean()) {
                        return List.of(seal(e, unfoundedChoices(e.pillar(), nv)));
                    }
                    return List.of(e);
                case WRONG_CHECKPOINTS:
                    if (m instanceof Checkpoint c) {
                        // A consistent lie: the same wrong digest for a checkpoint to everyone (signed: it is its own vote).
                        byte[] wrong = PbftDigests.sha256(("wrong" + c.seq()).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                        return List.of(seal(e, Checkpoint.signed(c.seq(), wrong, c.replica(), signer)));
                    }
                    return List.of(e);
                default:
                    return List.of(e);
            }
        }

        /** A VIEW-CHANGE for {@code newView} of {@code pillar} from this adversary carrying {@code lie}. */
        ViewChange lie(Lie lie, int pillar, long newView) {
            return ByzantineNetwork.lie(lie, config, id, pillar, newView, seenRequests.isEmpty() ? null : pick(seenRequests),
                    randomBytes(32), signer);
        }

        /**
         * This adversary's own VIEW-CHANGE with made-up P and Q entries: for its first instances above
         * h, "prepared" at view newView-1 another request it saw (or EMPTY). Signed by itself, so accepted;
         * rule A never adopts it without f+1 backing Q entries.
         */
        ViewChange falselyPrepared(int pillar, ViewChange vc) {
            List<PrePrepare> prepared = new ArrayList<>();
            List<PrePrepared> prePrepared = new ArrayList<>();
            long np = config.pillars();
            long s = firstAbove(vc.stableSeq(), pillar);
            for (int i = 0; i < 3 && s <= vc.stableSeq() + config.watermarkWindow(); i++, s += np) {
                Request other = seenRequests.isEmpty() || choices.nextInt(3) == 0 ? null : pick(seenRequests);
                PrePrepare pp = other == null ? PrePrepare.empty(vc.newView() - 1, s)
                        : new PrePrepare(vc.newView() - 1, s, other.digest(), other);
                prepared.add(pp);
                prePrepared.add(new PrePrepared(s, vc.newView() - 1, pp.digest()));
            }
            return ViewChange.signed(pillar, vc.newView(), vc.stableSeq(), vc.stableProof(), prepared, prePrepared,
                    vc.replica(), signer);
        }

        /** A NEW-VIEW for the next view this adversary leads, of VIEW-CHANGEs it made up (others' signatures forged). */
        NewView madeUpNewView(int pillar, PbftPillar own) {
            int n = config.replicaCount();
            long v = own.view() + 1;
            while (config.primary(v) != id) {
                v++;
            }
            List<ViewChange> madeUp = new ArrayList<>();
            for (int r = 0; r < n && madeUp.size() < config.quorum(); r++) {
                ViewChange vc = r == id ? ViewChange.signed(pillar, v, 0, List.of(), List.of(), List.of(), r, signer)
                        : new ViewChange(v, 0, List.of(), List.of(), List.of(), r, randomBytes(16));
                madeUp.add(vc);
            }
            return new NewView(v, madeUp, List.of(), id);
        }

        /**
         * Its real NEW-VIEW (from genuine VIEW-CHANGEs) with choices rules A/B do not allow: every
         * re-proposal EMPTY (or one EMPTY added), or one VIEW-CHANGE dropped and another counted twice.
         */
        NewView unfoundedChoices(int pillar, NewView nv) {
            if (choices.nextBoolean() && nv.viewChanges().size() > 1) {
                List<ViewChange> vcs = new ArrayList<>(nv.viewChanges());
                vcs.set(0, vcs.get(1));
                return new NewView(nv.view(), vcs, nv.prePrepares(), nv.replica());
            }
            List<PrePrepare> empties = new ArrayList<>();
            for (PrePrepare pp : nv.prePrepares()) {
                empties.add(PrePrepare.empty(pp.view(), pp.seq()));
            }
            if (nv.prePrepares().stream().allMatch(PrePrepare::isEmpty)) {
                long h = pillars[pillar].lowWatermark();
                long last = empties.isEmpty() ? h : empties.get(empties.size() - 1).seq();
                empties.add(PrePrepare.empty(nv.view(), firstAbove(Math.max(h, last), pillar)));
            }
            return new NewView(nv.view(), nv.viewChanges(), empties, nv.replica());
        }

        void multicast(int pillar, PbftMessage m) {
            for (int r = 0; r < config.replicaCount(); r++) {
                if (r != id) {
                    PbftEnvelope e = PbftEnvelope.seal(id, r, pillar, m, auth);
                    remember(sentByMe, e);
                    send(e);
                }
            }
        }

        PbftEnvelope seal(PbftEnvelope like, PbftMessage m) {
            return PbftEnvelope.seal(like.from(), like.to(), like.pillar(), m, auth);
        }

        void learnRequests(PbftEnvelope e) {
            Request r = e.message() instanceof Request q ? q
                    : e.message() instanceof PrePrepare pp ? pp.request() : null;
            if (r != null && r.client() < 1000 && !seenRequests.contains(r)) {
                if (seenRequests.size() >= 64) {
                    seenRequests.remove(0);
                }
                seenRequests.add(r);
            }
        }

        Request otherRequest(Request not) {
            for (int i = seenRequests.size() - 1; i >= 0; i--) {
                Request r = seenRequests.get(i);
                if (not == null || !r.id().equals(not.id())) {
                    return r;
                }
            }
            return null;
        }

        int otherThan(int excluded) {
            int r;
            do {
                r = choices.nextInt(config.replicaCount());
            } while (r == excluded || r == id);
            return r;
        }

        long firstAbove(long x, int pillar) {
            long np = config.pillars();
            long c = x + 1 + Math.floorMod(pillar - (x + 1), np);
            return c < 1 ? c + np : c;
        }

        Request withGarbageMacs(Request q) {
            return new Request(q.client(), q.number(), q.payload(), garbageMacs());
        }

        List<byte[]> garbageMacs() {
            List<byte[]> macs = new ArrayList<>();
            for (int r = 0; r < config.replicaCount(); r++) {
                macs.add(randomBytes(4));
            }
            return macs;
        }

        byte[] randomBytes(int length) {
            byte[] b = new byte[length];
            choices.nextBytes(b);
            return b;
        }

        <T> T pick(List<T> from) {
            return from.get(choices.nextInt(from.size()));
        }
    }
}
