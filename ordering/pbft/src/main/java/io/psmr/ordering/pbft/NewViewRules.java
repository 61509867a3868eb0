package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Castro and Liskov's view-change rules (TOCS 2002 §4.5) for one pillar, as pure functions over
 * VIEW-CHANGE messages: whether a VIEW-CHANGE is valid on its own, which instances a NEW-VIEW decides,
 * rules A and B, the choice the new primary makes, and the check a backup makes of a NEW-VIEW.
 * {@code docs/pbft.md} ("VIEW-CHANGE validity", "NEW-VIEW", "Safety of the view change") says why
 * they suffice.
 *
 * <p>Stateless apart from the configuration: any thread may call it; nothing blocks.
 */
final class NewViewRules {

    /** Why the content of a NEW-VIEW is refused; the pillar counts each as {@link Refusal#BAD_NEW_VIEW}. */
    enum Defect {
        /** More VIEW-CHANGEs than replicas. */
        TOO_MANY_VIEW_CHANGES,
        /** A VIEW-CHANGE for a view other than the NEW-VIEW's. */
        VIEW_CHANGE_FOR_ANOTHER_VIEW,
        /** Two VIEW-CHANGEs from one replica. */
        DUPLICATE_SENDER,
        /** A VIEW-CHANGE that is malformed or not signed by its sender. */
        INVALID_VIEW_CHANGE,
        /** Fewer than 2f+1 VIEW-CHANGEs. */
        TOO_FEW_VIEW_CHANGES,
        /** The pre-prepares are not, in order, exactly the instances to decide. */
        WRONG_INSTANCES,
        /** A pre-prepare of another view, whose body does not match its digest, or whose body is too large. */
        BAD_RE_PROPOSAL,
        /** A pre-prepare that neither rule A nor (for EMPTY) rule B allows. */
        NOT_ALLOWED
    }

    private final PbftConfig config;
    private final int pillar;
    private final Authenticator auth;

    /**
     * The rules of one pillar.
     *
     * @param config the cluster's configuration
     * @param pillar the pillar whose VIEW-CHANGEs these are (their signatures bind it)
     * @param auth   verifies VIEW-CHANGE and CHECKPOINT signatures
     */
    NewViewRules(PbftConfig config, int pillar, Authenticator auth) {
        this.config = config;
        this.pillar = pillar;
        this.auth = auth;
    }

    /** The lowest instance of this pillar above {@code x}. */
    long firstAbove(long x) {
        long np = config.pillars();
        long c = x + 1 + Math.floorMod(pillar - (x + 1), np);
        return c < 1 ? c + np : c;
    }

    /**
     * The most Q entries kept per instance: {@code n}. A correct replica accepts one pre-prepare per
     * view, so only a run of view changes with different values at one instance can reach it.
     */
    int maxPrePreparedPerSeq() {
        return config.replicaCount();
    }

    /**
     * Validity of a VIEW-CHANGE on its own: null if valid, else why not. Structure first (cheap):
     * stable proof shape, P and Q entries of this pillar inside (stableSeq, stableSeq+L], views below
     * the new view, one P entry per instance with a matching digest, Q bounded; then the stable proof's
     * signatures and the sender's own.
     *
     * @return null, {@link Refusal#BAD_VIEW_CHANGE} or {@link Refusal#BAD_SIGNATURE}
     */
    Refusal checkViewChange(ViewChange vc) {
        if (vc.newView() < 1 || vc.replica() < 0 || vc.replica() >= config.replicaCount() || vc.stableSeq() < 0
                || vc.suspect() < LeaderPolicy.NO_SUSPECT || vc.suspect() >= config.replicaCount()
                || !vc.leaders().wellFormed(config)) {
            return Refusal.BAD_VIEW_CHANGE;
        }
        long perWindow = config.watermarkWindow() / config.pillars() + 1;
        if (vc.prepared().size() > perWindow || vc.prePrepared().size() > perWindow * maxPrePreparedPerSeq()) {
            return Refusal.BAD_VIEW_CHANGE;
        }
        Set<Long> seqs = new HashSet<>();
        for (PrePrepare pp : vc.prepared()) {
            if (!ownInstanceInWindow(vc, pp.seq()) || !seqs.add(pp.seq()) || pp.view() < 0 || pp.view() >= vc.newView()
                    || !pp.digestMatches()
                    || (pp.request() != null && pp.request().payload().length > config.maxRequestBytes())) {
                return Refusal.BAD_VIEW_CHANGE;
            }
        }
        Map<Long, Integer> perSeq = new HashMap<>();
        Set<String> entries = new HashSet<>();
        for (PrePrepared q : vc.prePrepared()) {
            if (!ownInstanceInWindow(vc, q.seq()) || q.view() < 0 || q.view() >= vc.newView()
                    || q.digest().length != PbftDigests.LENGTH
                    || !entries.add(q.seq() + ":" + Arrays.toString(q.digest()))
                    || perSeq.merge(q.seq(), 1, Integer::sum) > maxPrePreparedPerSeq()) {
                return Refusal.BAD_VIEW_CHANGE;
            }
        }
        if (vc.stableSeq() == 0 ? !vc.stableProof().isEmpty()
                : vc.stableProof().isEmpty()
                || !CheckpointVotes.validProof(config, auth, vc.stableSeq(), vc.stableProof().get(0).stateDigest(),
                        vc.stableProof())) {
            return Refusal.BAD_VIEW_CHANGE;
        }
        return vc.signatureValid(pillar, auth) ? null : Refusal.BAD_SIGNATURE;
    }

    private boolean ownInstanceInWindow(ViewChange vc, long s) {
        return s >= 1 && config.pillarOf(s) == pillar && s > vc.stableSeq() && s <= vc.stableSeq() + config.watermarkWindow();
    }

    /** The stable checkpoint a NEW-VIEW starts from: the highest among its (valid) VIEW-CHANGEs. */
    static ViewChange newestCheckpoint(List<ViewChange> set) {
        ViewChange newest = null;
        for (ViewChange vc : set) {
            if (newest == null || vc.stableSeq() > newest.stableSeq()) {
                newest = vc;
            }
        }
        return newest;
    }

    /**
     * The instances a NEW-VIEW must decide: this pillar's above the newest h of {@code set} (min-s) up to
     * the highest P entry in it (max-s). Above max-s nothing can have committed, so the new view assigns
     * those afresh.
     */
    List<Long> toDecide(List<ViewChange> set) {
        long h = newestCheckpoint(set).stableSeq();
        long maxS = h;
        for (ViewChange vc : set) {
            for (PrePrepare p : vc.prepared()) {
                maxS = Math.max(maxS, p.seq());
            }
        }
        List<Long> seqs = new ArrayList<>();
        for (long s = firstAbove(h); s <= maxS; s += config.pillars()) {
            seqs.add(s);
        }
        return seqs;
    }

    /**
     * The primary's choice for each instance to decide: a prepared value that rule A allows
     * (candidates in order of their P view, highest first; the body comes from the P entry), else EMPTY
     * if rule B allows it; null if some instance is undecidable with this set (then the primary waits
     * for more VIEW-CHANGEs).
     *
     * @param v   the new view; every choice is a pre-prepare of it
     * @param set valid VIEW-CHANGEs for {@code v}, at least 2f+1 of distinct replicas
     */
    List<PrePrepare> decide(long v, List<ViewChange> set) {
        List<PrePrepare> out = new ArrayList<>();
        for (long s : toDecide(set)) {
            List<PrePrepare> candidates = new ArrayList<>();
            for (ViewChange vc : set) {
                PrePrepare p = preparedEntry(vc, s);
                if (p != null) {
                    candidates.add(p);
                }
            }
            candidates.sort((x, y) -> Long.compare(y.view(), x.view()));
            PrePrepare choice = null;
            for (PrePrepare c : candidates) {
                if (ruleA(set, s, c.digest())) {
                    choice = new PrePrepare(v, s, c.digest(), c.request());
                    break;
                }
            }
            if (choice == null && ruleB(set, s)) {
                choice = PrePrepare.empty(v, s);
            }
            if (choice == null) {
                return null;
            }
            out.add(choice);
        }
        return out;
    }

    private static PrePrepare preparedEntry(ViewChange vc, long seq) {
        for (PrePrepare p : vc.prepared()) {
            if (p.seq() == seq) {
                return p;
            }
        }
        return null;
    }

    /**
     * Castro's rule A for digest {@code d} at {@code seq}: there is a view u with
     * A1: 2f+1 VIEW-CHANGEs (all have h below seq here) whose P entry for seq, if any, has view &lt; u,
     * or view u and digest d; and A2: f+1 VIEW-CHANGEs with a Q entry (seq, d, u') with u' &ge; u.
     * A1 only gets easier and A2 only harder as u grows, so the u to try is the largest A2 allows: the
     * (f+1)-th highest Q view for (seq, d).
     */
    boolean ruleA(List<ViewChange> set, long seq, byte[] d) {
        List<Long> qViews = new ArrayList<>();
        for (ViewChange vc : set) {
            long best = -1;
            for (PrePrepared q : vc.prePrepared()) {
                if (q.seq() == seq && Arrays.equals(q.digest(), d)) {
                    best = Math.max(best, q.view());
                }
            }
            if (best >= 0) {
                qViews.add(best);
            }
        }
        if (qViews.size() < config.f() + 1) {
            return false;
        }
        qViews.sort((x, y) -> Long.compare(y, x));
        long u = qViews.get(config.f());
        int a1 = 0;
        for (ViewChange vc : set) {
            PrePrepare p = preparedEntry(vc, seq);
            if (p == null || p.view() < u || (p.view() == u && Arrays.equals(p.digest(), d))) {
                a1++;
            }
        }
        return a1 >= config.quorum();
    }

    /** Castro's rule B: 2f+1 VIEW-CHANGEs (all have h below seq here) have no P entry for seq. */
    boolean ruleB(List<ViewChange> set, long seq) {
        int without = 0;
        for (ViewChange vc : set) {
            without += preparedEntry(vc, seq) == null ? 1 : 0;
        }
        return without >= config.quorum();
    }

    /**
     * A backup's check of a NEW-VIEW's content (who sent it, and whether its view is current, is the
     * pillar's to check): at most n VIEW-CHANGEs, each for the NEW-VIEW's view, of distinct senders and
     * valid, at least 2f+1 of them, and {@link #allowedChoices allowed choices}.
     *
     * @param verified the VIEW-CHANGE already verified from a replica (or null): one equal to it is not
     *                 verified again
     * @return null if it is acceptable, else the first defect found
     */
    Defect checkNewView(NewView nv, IntFunction<ViewChange> verified) {
        if (nv.viewChanges().size() > config.replicaCount()) {
            return Defect.TOO_MANY_VIEW_CHANGES;
        }
        Set<Integer> senders = new HashSet<>();
        for (ViewChange vc : nv.viewChanges()) {
            if (vc.newView() != nv.view()) {
                return Defect.VIEW_CHANGE_FOR_ANOTHER_VIEW;
            }
            if (!senders.add(vc.replica())) {
                return Defect.DUPLICATE_SENDER;
            }
            if (!vc.equals(verified.apply(vc.replica())) && checkViewChange(vc) != null) {
                return Defect.INVALID_VIEW_CHANGE;
            }
        }
        if (senders.size() < config.quorum()) {
            return Defect.TOO_FEW_VIEW_CHANGES;
        }
        return allowedChoices(nv);
    }

    /**
     * Whether the NEW-VIEW's pre-prepares are, in order, one per instance to decide, each of its view,
     * with a body matching its digest, and each allowed by rule A or (EMPTY only) rule B against its
     * VIEW-CHANGEs. Not necessarily what this replica would choose: any allowed choice is safe.
     *
     * @return null if they are, else the first defect found
     */
    Defect allowedChoices(NewView nv) {
        List<ViewChange> set = nv.viewChanges();
        List<Long> seqs = toDecide(set);
        if (seqs.size() != nv.prePrepares().size()) {
            return Defect.WRONG_INSTANCES;
        }
        for (int i = 0; i < seqs.size(); i++) {
            PrePrepare pp = nv.prePrepares().get(i);
            if (pp.seq() != seqs.get(i)) {
                return Defect.WRONG_INSTANCES;
            }
            if (pp.view() != nv.view() || !pp.digestMatches()
                    || (pp.request() != null && pp.request().payload().length > config.maxRequestBytes())) {
                return Defect.BAD_RE_PROPOSAL;
            }
            if (!ruleA(set, pp.seq(), pp.digest()) && !(pp.isEmpty() && ruleB(set, pp.seq()))) {
                return Defect.NOT_ALLOWED;
            }
        }
        return null;
    }
}
