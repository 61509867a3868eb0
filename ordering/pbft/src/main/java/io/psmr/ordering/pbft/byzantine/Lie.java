package io.psmr.ordering.pbft.byzantine;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftDigests;
import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import io.psmr.ordering.pbft.Refusal;
import java.util.ArrayList;
import java.util.List;

/**
 * A lie in a VIEW-CHANGE, signed by the liar (it can sign only as itself): what {@link ByzantineBehaviour#LYING_VIEW_CHANGE}
 * sends. All but {@link #FALSE_PREPARED} are detectable and refused on their own with {@link #refusal()}.
 * {@link #FALSE_PREPARED} is a lie about the liar's own state (a prepared value at a high view it never prepared): nobody
 * can detect it, and rule A makes it harmless (it needs f+1 Q entries).
 */
public enum Lie {
    /** The P entry's digest is not its request's. */
    P_DIGEST_NOT_REQUEST,
    /** The P entry is at the new view itself. */
    P_VIEW_NOT_BELOW_NEW_VIEW,
    /** The Q entry is at the new view itself. */
    Q_VIEW_NOT_BELOW_NEW_VIEW,
    /** Two P entries for one sequence number. */
    TWO_P_ENTRIES_ONE_SEQ,
    /** One Q entry twice. */
    DUPLICATE_Q_ENTRY,
    /** A stable checkpoint "proved" by only 2f CHECKPOINTs. */
    BAD_STABLE_PROOF,
    /** A P entry beyond the watermark window. */
    OUTSIDE_WINDOW,
    /** A P entry of another pillar's instance. */
    OTHER_PILLAR,
    /** A stable checkpoint "proved" by 2f+1 CHECKPOINTs, the others' signatures made up. */
    FORGED_STABLE_PROOF,
    /** The VIEW-CHANGE's own signature made up (as if another replica's VIEW-CHANGE were altered). */
    FORGED_SIGNATURE,
    /** Claims to have prepared (and pre-prepared) a value at view newView-1 that it never did. */
    FALSE_PREPARED;

    private static final List<Lie> DETECTABLE = List.of(values()).stream().filter(l -> l.refusal() != null).toList();

    /** How a correct replica refuses the lie on its own; null: it cannot (and need not). */
    public Refusal refusal() {
        return switch (this) {
            case FALSE_PREPARED -> null;
            case FORGED_SIGNATURE -> Refusal.BAD_SIGNATURE;
            default -> Refusal.BAD_VIEW_CHANGE;
        };
    }

    /** The lies a correct replica refuses, in declaration order. */
    public static List<Lie> detectable() {
        return DETECTABLE;
    }

    /**
     * A VIEW-CHANGE for {@code newView} of {@code pillar} from {@code liar}, signed with {@code signer} (which may sign
     * only as the liar), whose single P entry (the pillar's first instance, view {@code newView - 1}, for
     * {@code request} or EMPTY, with its Q entry) is well formed except for this lie.
     *
     * @param junk bytes for whatever the lie makes up (a digest, a signature, a checkpoint's state)
     */
    public ViewChange viewChange(PbftConfig config, int liar, int pillar, long newView, Request request, byte[] junk,
                                 Authenticator signer) {
        int f = config.f();
        long np = config.pillars();
        long seq = switch (this) {
            case OUTSIDE_WINDOW -> config.firstSeq(pillar) + np * (config.watermarkWindow() / np + 1);
            case OTHER_PILLAR -> np > 1 ? config.firstSeq((pillar + 1) % (int) np)
                    : config.firstSeq(pillar) + np * (config.watermarkWindow() / np + 1);
            default -> config.firstSeq(pillar);
        };
        long pView = this == P_VIEW_NOT_BELOW_NEW_VIEW ? newView : newView - 1;
        PrePrepare pp = request == null ? PrePrepare.empty(pView, seq) : new PrePrepare(pView, seq, request.digest(), request);
        if (this == P_DIGEST_NOT_REQUEST) {
            pp = new PrePrepare(pView, seq, junk, request);
        }
        List<PrePrepare> prepared = new ArrayList<>(List.of(pp));
        if (this == TWO_P_ENTRIES_ONE_SEQ) {
            prepared.add(PrePrepare.empty(pView, seq));
        }
        long qView = this == Q_VIEW_NOT_BELOW_NEW_VIEW ? newView : pView;
        List<PrePrepared> prePrepared = new ArrayList<>(List.of(new PrePrepared(seq, qView, pp.digest())));
        if (this == DUPLICATE_Q_ENTRY) {
            prePrepared.add(new PrePrepared(seq, qView, pp.digest()));
        }
        if (this == BAD_STABLE_PROOF || this == FORGED_STABLE_PROOF) {
            // A stable checkpoint "proved" by only 2f CHECKPOINTs, or by 2f+1 whose others' signatures are made up.
            long k = config.checkpointInterval();
            int size = this == BAD_STABLE_PROOF ? 2 * f : 2 * f + 1;
            List<Checkpoint> proof = new ArrayList<>();
            for (int r = 0; r < config.replicaCount() && proof.size() < size; r++) {
                proof.add(r == liar ? Checkpoint.signed(k, junk, r, signer) : new Checkpoint(k, junk, r, PbftDigests.sha256(junk)));
            }
            return ViewChange.signed(pillar, newView, k, proof, List.of(), List.of(), liar, signer);
        }
        ViewChange vc = ViewChange.signed(pillar, newView, 0, List.of(), prepared, prePrepared, liar, signer);
        return this == FORGED_SIGNATURE ? vc.withSignature(junk) : vc;
    }
}
