package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.PreparedCertificate;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A {@link PbftNetwork} in which replica {@link #byzantine} follows a {@link ByzantineBehaviour}: its
 * outgoing envelopes are rewritten, dropped or multiplied in {@link #transmit}, and in {@link #tick}
 * it sends what no correct replica would. Its own decisions use a separate seeded random, so a
 * (seed, behaviour) pair always gives the same run.
 */
class ByzantineNetwork extends PbftNetwork {

    /**
     * Lies in a VIEW-CHANGE. All but {@link #FORGED_CERTIFICATE} are structurally wrong, and the core
     * must refuse them; {@link #FORGED_CERTIFICATE} is a well-formed certificate for an instance that
     * never prepared, which pairwise MACs cannot expose (see docs/wip-wip-pbft-byz.md).
     */
    enum Lie {
        FEW_PREPARES, SAME_PREPARER_TWICE, PRE_PREPARE_DIGEST_NOT_REQUEST, PREPARE_DIGEST_NOT_PRE_PREPARE,
        VIEW_NOT_BELOW_NEW_VIEW, PREPARE_FROM_PROPOSER, WRONG_PROPOSER, BAD_STABLE_PROOF, OUTSIDE_WINDOW,
        OTHER_PILLAR, TWO_CERTIFICATES_ONE_SEQ,
        /** Undetectable without signatures or VIEW-CHANGE-ACK: never used in the campaign. */
        FORGED_CERTIFICATE,
        /** A stable checkpoint "proved" by 2f+1 CHECKPOINTs it made up: undetectable too, never used. */
        FORGED_STABLE_PROOF;

        /** The lies the core can detect. */
        static List<Lie> detectable() {
            return List.of(values()).subList(0, FORGED_CERTIFICATE.ordinal());
        }
    }

    private static final int RING = 256;
    /** How long the colluding network holds back a PREPARE/COMMIT of a split instance: well past a view change. */
    private static final int HOLD_TICKS = 200;

    /** An instance a {@link ByzantineBehaviour#SPLITTING_LEADER} pre-prepared at two correct replicas only. */
    private record Split(int pillar, long view, long seq) {
    }

    private record Held(long at, PbftEnvelope envelope) {
    }

    final int byzantine;
    final ByzantineBehaviour behaviour;
    private final PbftConfig config;
    private final Authenticator auth;
    private final Random adversary;
    private PbftPillar[] pillars;
    private final List<Request> seenRequests = new ArrayList<>();
    private final List<PbftEnvelope> sentByMe = new ArrayList<>();
    private final List<PbftEnvelope> receivedByMe = new ArrayList<>();
    private long now;
    private boolean healed;
    private final java.util.Set<Split> splits = new java.util.HashSet<>();
    private final List<Held> held = new ArrayList<>();

    ByzantineNetwork(Random random, int byzantine, ByzantineBehaviour behaviour, PbftConfig config, Authenticator auth) {
        super(random);
        this.byzantine = byzantine;
        this.behaviour = behaviour;
        this.config = config;
        this.auth = auth;
        this.adversary = new Random(random.nextLong());
    }

    /** Gives the adversary its replica's pillars, whose views and watermarks it reads. */
    void attach(PbftCluster cluster) {
        pillars = cluster.replicas[byzantine].pillars;
        cluster.byzantine.add(byzantine);
    }

    @Override
    void transmit(PbftEnvelope e, long now) {
        if (e.from() != byzantine) {
            if (e.to() == byzantine) {
                remember(receivedByMe, e);
                learnRequests(e);
            }
            if (holdBack(e)) {
                held.add(new Held(now + HOLD_TICKS, e));
                return;
            }
            super.transmit(e, now);
            return;
        }
        learnRequests(e);
        for (PbftEnvelope out : rewrite(e)) {
            remember(sentByMe, out);
            super.transmit(out, now);
        }
    }

    @Override
    void heal() {
        super.heal();
        healed = true;
    }

    /**
     * The colluding network of a split instance: the PREPARE and COMMIT of the correct replica that
     * gets the Byzantine COMMIT ("X") to the other pre-prepared one ("Y") are held back, so Y does not
     * prepare before the view change. Only while the network is faulty.
     */
    private boolean holdBack(PbftEnvelope e) {
        if (behaviour != ByzantineBehaviour.SPLITTING_LEADER || healed) {
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
        return splits.contains(new Split(e.pillar(), v, s)) && e.from() == role(1, v, s) && e.to() == role(2, v, s);
    }

    /** For a split instance: role 0 gets no pre-prepare, role 1 ("X") gets the Byzantine COMMIT, role 2 ("Y") neither. */
    private int role(int role, long view, long seq) {
        int k = (int) Math.floorMod(seq + view + role, 3L);
        return k < byzantine ? k : k + 1;
    }

    @Override
    void tick(long now) {
        this.now = now;
        for (java.util.Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.at() <= now) {
                it.remove();
                super.transmit(h.envelope(), now);
            }
        }
        if (pillars == null) {
            return;
        }
        int p = adversary.nextInt(config.pillars());
        PbftPillar pillar = pillars[p];
        switch (behaviour) {
            case FORGED_MACS -> {
                if (now % 5 == 0) {
                    // A request no client sent; the adversary cannot compute client MACs.
                    Request forged = new Request(1000 + adversary.nextInt(4), 1 + adversary.nextInt(100), randomBytes(8),
                            garbageMacs());
                    multicast(p, forged);
                }
            }
            case REPLAYS -> {
                if (now % 2 == 0 && !sentByMe.isEmpty()) {
                    // An exact old envelope of its own: its MAC is genuine.
                    super.transmit(sentByMe.get(adversary.nextInt(sentByMe.size())), now);
                }
                if (now % 2 == 1 && !receivedByMe.isEmpty()) {
                    // Another replica's message, re-enveloped under its own (valid) MAC.
                    PbftEnvelope old = receivedByMe.get(adversary.nextInt(receivedByMe.size()));
                    super.transmit(PbftEnvelope.seal(byzantine, otherThan(byzantine), old.pillar(), old.message(), auth), now);
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
                    long far = pillar.lowWatermark() + k * (1 + adversary.nextInt((int) (config.watermarkWindow() / k) + 4));
                    multicast(p, new Checkpoint(far, randomBytes(32), byzantine));
                    if (k > 1) {
                        multicast(p, new Checkpoint(pillar.lowWatermark() + 1, randomBytes(32), byzantine));
                    }
                }
            }
            case EMPTY_NOT_OWNED -> {
                if (now % 3 == 0) {
                    long np = config.pillars();
                    long view = pillar.view();
                    long s = firstAbove(pillar.lowWatermark(), p) + np * adversary.nextInt((int) (config.watermarkWindow() / np));
                    if (config.leader(s, view) != byzantine) {
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

    /** What the Byzantine replica sends instead of {@code e}. */
    private List<PbftEnvelope> rewrite(PbftEnvelope e) {
        PbftMessage m = e.message();
        switch (behaviour) {
            case SILENT:
                return List.of();
            case EQUIVOCATING_LEADER:
                if (m instanceof PrePrepare pp) {
                    int k = e.to() < byzantine ? e.to() : e.to() - 1; // 0..n-2 among the others
                    int variant = (int) Math.floorMod(k + pp.seq() + pp.view(), 3L);
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
                    if (e.to() == role(0, pp.view(), pp.seq())) {
                        return List.of();
                    }
                    splits.add(new Split(e.pillar(), pp.view(), pp.seq()));
                    return List.of(e);
                }
                if (m instanceof Commit c && splits.contains(new Split(e.pillar(), c.view(), c.seq()))) {
                    return e.to() == role(1, c.view(), c.seq()) ? List.of(e) : List.of();
                }
                if (m instanceof ViewChange vc) {
                    // Hides its prepared certificates: a lie by omission, undetectable and harmless with 2f+1 quorums.
                    return List.of(seal(e, new ViewChange(vc.newView(), vc.stableSeq(), vc.stableProof(), List.of(), vc.replica())));
                }
                return List.of(e);
            case FORGED_MACS: {
                double r = adversary.nextDouble();
                if (r < 0.2) {
                    byte[] mac = e.mac();
                    mac[adversary.nextInt(mac.length)] ^= 1;
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
                if (adversary.nextBoolean()) {
                    return List.of(e);
                }
                if (m instanceof PrePrepare pp) {
                    if (pp.request() != null && adversary.nextBoolean()) {
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
            case WRONG_CHECKPOINTS:
                if (m instanceof Checkpoint c) {
                    // A consistent lie: the same wrong digest for a checkpoint to everyone.
                    byte[] wrong = PbftDigests.sha256(("wrong" + c.seq()).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    return List.of(seal(e, new Checkpoint(c.seq(), wrong, c.replica())));
                }
                return List.of(e);
            default:
                return List.of(e);
        }
    }

    /** A VIEW-CHANGE for {@code newView} of {@code pillar} from the Byzantine replica carrying {@code lie}. */
    ViewChange lie(Lie lie, int pillar, long newView) {
        return lie(lie, config, byzantine, pillar, newView, seenRequests.isEmpty() ? null : pick(seenRequests),
                randomBytes(32));
    }

    /**
     * Builds a VIEW-CHANGE from {@code liar} whose single certificate (for the pillar's first instance,
     * in view {@code newView - 1}, for {@code request} or EMPTY) is well formed except for {@code lie}.
     */
    static ViewChange lie(Lie lie, PbftConfig config, int liar, int pillar, long newView, Request request, byte[] junk) {
        int n = config.replicaCount();
        int f = config.f();
        long np = config.pillars();
        long seq = switch (lie) {
            case OUTSIDE_WINDOW -> config.firstSeq(pillar) + np * (config.watermarkWindow() / np + 1);
            case OTHER_PILLAR -> np > 1 ? config.firstSeq((pillar + 1) % (int) np)
                    : config.firstSeq(pillar) + np * (config.watermarkWindow() / np + 1);
            default -> config.firstSeq(pillar);
        };
        long certView = lie == Lie.VIEW_NOT_BELOW_NEW_VIEW ? newView : newView - 1;
        PrePrepare pp = request == null ? PrePrepare.empty(certView, seq) : new PrePrepare(certView, seq, request.digest(), request);
        if (lie == Lie.PRE_PREPARE_DIGEST_NOT_REQUEST) {
            pp = new PrePrepare(certView, seq, junk, request);
        }
        int proposer = config.leader(seq, certView);
        if (lie == Lie.WRONG_PROPOSER) {
            for (int r = 0; r < n; r++) {
                if (r != config.leader(seq, certView) && r != config.primary(certView)) {
                    proposer = r;
                    break;
                }
            }
        }
        byte[] voted = lie == Lie.PREPARE_DIGEST_NOT_PRE_PREPARE ? junk : pp.digest();
        List<Prepare> prepares = new ArrayList<>();
        if (lie == Lie.PREPARE_FROM_PROPOSER) {
            prepares.add(new Prepare(certView, seq, voted, proposer));
        }
        for (int r = 0; r < n && prepares.size() < 2 * f; r++) {
            if (r != proposer) {
                prepares.add(new Prepare(certView, seq, voted, r));
            }
        }
        if (lie == Lie.FEW_PREPARES) {
            prepares.remove(prepares.size() - 1);
        }
        if (lie == Lie.SAME_PREPARER_TWICE) {
            prepares.set(1, prepares.get(0));
        }
        List<PreparedCertificate> certs = new ArrayList<>();
        certs.add(new PreparedCertificate(pp, proposer, prepares));
        if (lie == Lie.TWO_CERTIFICATES_ONE_SEQ) {
            PrePrepare empty = PrePrepare.empty(certView, seq);
            List<Prepare> emptyVotes = prepares.stream().map(p -> new Prepare(certView, seq, empty.digest(), p.replica())).toList();
            certs.add(new PreparedCertificate(empty, proposer, emptyVotes));
        }
        if (lie == Lie.BAD_STABLE_PROOF || lie == Lie.FORGED_STABLE_PROOF) {
            // A stable checkpoint "proved" by only 2f CHECKPOINTs, or by 2f+1 made-up ones.
            long k = config.checkpointInterval();
            List<Checkpoint> proof = new ArrayList<>();
            for (int r = 0; r < (lie == Lie.BAD_STABLE_PROOF ? 2 * f : 2 * f + 1); r++) {
                proof.add(new Checkpoint(k, junk, r));
            }
            return new ViewChange(newView, k, proof, List.of(), liar);
        }
        return new ViewChange(newView, 0, List.of(), certs, liar);
    }

    private void multicast(int pillar, PbftMessage m) {
        for (int r = 0; r < config.replicaCount(); r++) {
            if (r != byzantine) {
                PbftEnvelope e = PbftEnvelope.seal(byzantine, r, pillar, m, auth);
                remember(sentByMe, e);
                super.transmit(e, now);
            }
        }
    }

    private PbftEnvelope seal(PbftEnvelope like, PbftMessage m) {
        return PbftEnvelope.seal(like.from(), like.to(), like.pillar(), m, auth);
    }

    private void learnRequests(PbftEnvelope e) {
        Request r = e.message() instanceof Request q ? q
                : e.message() instanceof PrePrepare pp ? pp.request() : null;
        if (r != null && r.client() < 1000 && !seenRequests.contains(r)) {
            if (seenRequests.size() >= 64) {
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

    private static void remember(List<PbftEnvelope> ring, PbftEnvelope e) {
        if (ring.size() >= RING) {
            ring.remove(0);
        }
        ring.add(e);
    }

    private int otherThan(int excluded) {
        int r;
        do {
            r = adversary.nextInt(config.replicaCount());
        } while (r == excluded || r == byzantine);
        return r;
    }

    private long firstAbove(long x, int pillar) {
        long np = config.pillars();
        long c = x + 1 + Math.floorMod(pillar - (x + 1), np);
        return c < 1 ? c + np : c;
    }

    private Request withGarbageMacs(Request q) {
        return new Request(q.client(), q.number(), q.payload(), garbageMacs());
    }

    private List<byte[]> garbageMacs() {
        List<byte[]> macs = new ArrayList<>();
        for (int r = 0; r < config.replicaCount(); r++) {
            macs.add(randomBytes(4));
        }
        return macs;
    }

    private byte[] randomBytes(int length) {
        byte[] b = new byte[length];
        adversary.nextBytes(b);
        return b;
    }

    private <T> T pick(List<T> from) {
        return from.get(adversary.nextInt(from.size()));
    }
}
