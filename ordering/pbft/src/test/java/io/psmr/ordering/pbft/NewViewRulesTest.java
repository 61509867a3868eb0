package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.psmr.ordering.pbft.NewViewRules.Defect;
import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Table tests of Castro's rules A and B, of the new primary's choice and of a backup's NEW-VIEW check,
 * with f = 1 (n = 4, quorum 3), one pillar, K = 4, L = 8, so instances are 1, 2, 3, ...
 *
 * <p>A set of VIEW-CHANGEs is written as one VIEW-CHANGE per replica (0, 1, 2, ... in order), separated by
 * {@code |}; each is a list of entries: {@code h4} a stable checkpoint at 4 (proved by replicas 0-2),
 * {@code P3:a@2} a P entry (instance 3 prepared with request a in view 2), {@code Q3:a@2} a Q entry
 * (a pre-prepared at 3 in view 2), {@code _} nothing. Requests are {@code a}, {@code b}, {@code x};
 * {@code -} is EMPTY. Outcomes list {@code instance:value} in order; {@code wait} means undecidable.
 */
class NewViewRulesTest {

    private static final PbftConfig CONFIG = new PbftConfig(1, 1, 4, 8, 20, 160, 2, 10, LeaderRotation.FIXED, 64, 64);
    private static final Authenticator AUTH = new ChecksumAuthenticator();
    private static final NewViewRules RULES = new NewViewRules(CONFIG, 0, AUTH);
    private static final long NEW_VIEW = 5;
    private static final Map<String, Request> REQUESTS = Map.of(
            "a", Request.sign(1, 1, new byte[] {1}, AUTH, 4),
            "b", Request.sign(2, 1, new byte[] {2}, AUTH, 4),
            "x", Request.sign(3, 1, new byte[] {3}, AUTH, 4));
    private static final byte[] STATE = PbftDigests.sha256(new byte[] {42});

    // ------------------------------------------------------------------ rules A and B

    /** Rule A for one (instance, value) and rule B for that instance, against a set of VIEW-CHANGEs. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                                       view changes;                                                 seq; value; A;     B
            prepared at one, pre-prepared at f+1;          P1:a@0 Q1:a@0 | Q1:a@0 | _;                                    1;   a;     true;  false
            pre-prepared at f only;                        P1:a@0 Q1:a@0 | _ | _;                                         1;   a;     false; false
            pre-prepared at f only, a fourth without P;    P1:a@0 Q1:a@0 | _ | _ | _;                                     1;   a;     false; true
            no P entry anywhere;                           _ | _ | _;                                                     1;   -;     false; true
            one of three without P;                        P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | _;                             1;   -;     false; false
            higher view wins, u = 2;                       P1:a@0 Q1:a@0 | P1:b@2 Q1:a@0 Q1:b@2 | Q1:b@2;                 1;   b;     true;  false
            lower view blocked by a higher P entry;        P1:a@0 Q1:a@0 | P1:b@2 Q1:a@0 Q1:b@2 | Q1:b@2;                 1;   a;     false; false
            same view, other digest blocks A1;             P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | P1:x@0 Q1:x@0;                 1;   a;     false; false
            a lie of view 4 blocks A1 with three;          P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | P1:x@4 Q1:x@4;                 1;   a;     false; false
            the lie itself has one Q entry;                P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | P1:x@4 Q1:x@4;                 1;   x;     false; false
            the lie is outvoted with four;                 P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | P1:x@4 Q1:x@4 | P1:a@0 Q1:a@0; 1;   a;     true;  false
            A2 counts Q views at least u;                  P1:a@1 Q1:a@1 | Q1:a@3 | P1:b@0 Q1:b@0;                        1;   a;     true;  false
            u is the (f+1)-th highest Q view, not the top; P1:a@0 Q1:a@0 | Q1:a@3 | P1:b@2 Q1:b@2;                        1;   a;     false; false
            a Q entry of another instance does not count;  P1:a@0 Q1:a@0 | Q2:a@0 | _;                                    1;   a;     false; false
            both A and B allow;                            P1:a@0 Q1:a@0 | Q1:a@0 | _ | _;                                1;   a;     true;  true
            fewer than 2f+1 messages;                      P1:a@0 Q1:a@0 | Q1:a@0;                                        1;   a;     false; false
            """)
    void rulesAAndB(String name, String viewChanges, long seq, String value, boolean a, boolean b) {
        List<ViewChange> set = viewChanges(viewChanges, NEW_VIEW);
        assertEquals(a, RULES.ruleA(set, seq, digest(value)), "rule A");
        assertEquals(b, RULES.ruleB(set, seq), "rule B");
    }

    // ------------------------------------------------------------------ the primary's NEW-VIEW

    /**
     * The instances a NEW-VIEW decides (min-s..max-s) and the primary's choice for each: rule A's value
     * (highest P view first), else EMPTY by rule B, else it waits for more VIEW-CHANGEs.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                                    view changes;                                                    instances; outcome
            nothing prepared;                           _ | _ | _;                                                       '';        ''
            one prepared value;                         P1:a@0 Q1:a@0 | Q1:a@0 | _;                                      1;         1:a
            a claim no f+1 back, three;                 P1:a@0 Q1:a@0 | _ | _;                                           1;         wait
            a claim no f+1 back, four: EMPTY;           P1:a@0 Q1:a@0 | _ | _ | _;                                       1;         1:-
            gaps below max-s are EMPTY;                 P3:a@0 Q3:a@0 | Q3:a@0 | _;                                      1 2 3;     1:- 2:- 3:a
            two values with a gap;                      P1:a@0 Q1:a@0 P3:b@1 Q3:b@1 | Q1:a@0 Q3:b@1 | _;                 1 2 3;     1:a 2:- 3:b
            a prepared EMPTY is re-proposed;            P2:-@0 Q2:-@0 | Q2:-@0 | _;                                      1 2;       1:- 2:-
            the higher view's value;                    P1:a@0 Q1:a@0 | P1:b@2 Q1:a@0 Q1:b@2 | Q1:b@2;                   1;         1:b
            a higher P without f+1 Q: lower view;       P1:a@1 Q1:a@1 | P1:b@0 Q1:b@0 | P1:b@0 Q1:b@0 | Q1:b@0;          1;         1:b
            a lie blocks the decision with three;       P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | P1:x@4 Q1:x@4;                   1;         wait
            the lie is outvoted with four;              P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | P1:x@4 Q1:x@4 | P1:a@0 Q1:a@0;   1;         1:a
            A preferred over B;                         P1:a@0 Q1:a@0 | Q1:a@0 | _ | _;                                  1;         1:a
            one high Q entry does not raise u;          P1:a@0 Q1:a@0 | Q1:a@3 | P1:b@2 Q1:b@2;                          1;         wait
            min-s is above the newest checkpoint;       h4 | h4 P5:a@1 Q5:a@1 | Q5:a@1;                                  5;         5:a
            entries at or below h are not decided;      h4 | P1:a@0 Q1:a@0 | Q1:a@0;                                     '';        ''
            max-s is the highest P entry;               h4 P7:b@3 Q7:b@3 | h4 Q5:a@1 Q7:b@3 | P5:a@1 Q5:a@1;              5 6 7;     5:a 6:- 7:b
            a lone claim above h, three: wait;          h4 | h4 | P5:a@1 Q5:a@1;                                         5;         wait
            a lone claim, four: EMPTY above h;          h4 | h4 | P5:a@1 Q5:a@1 | _;                                     5;         5:-
            fewer than 2f+1 messages;                   P1:a@0 Q1:a@0 | Q1:a@0;                                          1;         wait
            """)
    void thePrimaryDecides(String name, String viewChanges, String instances, String outcome) {
        List<ViewChange> set = viewChanges(viewChanges, NEW_VIEW);
        StringJoiner seqs = new StringJoiner(" ");
        RULES.toDecide(set).forEach(s -> seqs.add(Long.toString(s)));
        assertEquals(instances, seqs.toString(), "instances to decide");
        List<PrePrepare> choices = RULES.decide(NEW_VIEW, set);
        assertEquals(outcome, describe(choices));
        if (choices != null) {
            for (PrePrepare pp : choices) {
                assertEquals(NEW_VIEW, pp.view(), "a choice of the new view");
                assertEquals(true, pp.digestMatches(), "its body matches its digest");
            }
            assertNull(RULES.allowedChoices(new NewView(NEW_VIEW, set, choices, 1)), "a backup accepts the primary's choice");
        }
    }

    // ------------------------------------------------------------------ a backup's NEW-VIEW check

    /**
     * A backup's check of a NEW-VIEW: the VIEW-CHANGEs (each verified: none was seen before) and the
     * re-proposals, written as for {@link #thePrimaryDecides}. Special VIEW-CHANGEs: {@code !altered} a
     * signed one whose P entry was dropped afterwards, {@code !pillar1} one signed for another pillar,
     * {@code !forgedProof} one whose stable proof is signed by no one, {@code !view4} one for view 4,
     * {@code !again} the previous one once more. A re-proposal {@code 1:a@4} is of view 4, {@code 1:a/b}
     * carries b's body under a's digest.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                                  view changes;                                                  re-proposals;  refused as
            the primary's choice;                     P1:a@0 Q1:a@0 | Q1:a@0 | _;                                     1:a;           ''
            nothing to decide;                        _ | _ | _;                                                      '';            ''
            EMPTY by rule B;                          P1:a@0 Q1:a@0 | _ | _ | _;                                      1:-;           ''
            EMPTY where A and B allow;                P1:a@0 Q1:a@0 | Q1:a@0 | _ | _;                                 1:-;           ''
            gaps filled with EMPTY;                   P3:a@0 Q3:a@0 | Q3:a@0 | _;                                     1:- 2:- 3:a;   ''
            a newer checkpoint;                       h4 | h4 P5:a@1 Q5:a@1 | Q5:a@1;                                 5:a;           ''
            EMPTY over a value rule A allows;         P1:a@0 Q1:a@0 | Q1:a@0 | _;                                     1:-;           NOT_ALLOWED
            a value no f+1 pre-prepared;              P1:a@0 Q1:a@0 | _ | _ | _;                                      1:a;           NOT_ALLOWED
            adopting a lie;                           P1:a@0 Q1:a@0 | P1:a@0 Q1:a@0 | P1:x@4 Q1:x@4;                  1:x;           NOT_ALLOWED
            a value nobody reported;                  P1:a@0 Q1:a@0 | Q1:a@0 | _;                                     1:b;           NOT_ALLOWED
            a value only a high Q entry backs;        P1:a@0 Q1:a@0 | Q1:a@3 | P1:b@2 Q1:b@2;                          1:a;           NOT_ALLOWED
            an instance omitted;                      P3:a@0 Q3:a@0 | Q3:a@0 | _;                                     1:- 3:a;       WRONG_INSTANCES
            an instance above max-s;                  P1:a@0 Q1:a@0 | Q1:a@0 | _;                                     1:a 2:-;       WRONG_INSTANCES
            instances out of order;                   P2:a@0 Q2:a@0 | Q2:a@0 | _;                                     2:a 1:-;       WRONG_INSTANCES
            a re-proposal of another view;            P1:a@0 Q1:a@0 | Q1:a@0 | _;                                     1:a@4;         BAD_RE_PROPOSAL
            a body that does not match its digest;    P1:a@0 Q1:a@0 | Q1:a@0 | _;                                     1:a/b;         BAD_RE_PROPOSAL
            fewer than 2f+1 messages;                 P1:a@0 Q1:a@0 | Q1:a@0;                                         1:a;           TOO_FEW_VIEW_CHANGES
            more than n messages;                     _ | _ | _ | _ | !again;                                         '';            TOO_MANY_VIEW_CHANGES
            one replica counted twice;                P1:a@0 Q1:a@0 | Q1:a@0 | !again;                                1:a;           DUPLICATE_SENDER
            a VIEW-CHANGE for another view;           P1:a@0 Q1:a@0 | Q1:a@0 | !view4;                                1:a;           VIEW_CHANGE_FOR_ANOTHER_VIEW
            a VIEW-CHANGE altered after signing;      !altered | Q1:a@0 | _;                                          '';            INVALID_VIEW_CHANGE
            a VIEW-CHANGE of another pillar;          _ | _ | !pillar1;                                               '';            INVALID_VIEW_CHANGE
            a forged stable proof;                    _ | _ | !forgedProof;                                           '';            INVALID_VIEW_CHANGE
            """)
    void aBackupChecksTheNewView(String name, String viewChanges, String rePropose, String refusedAs) {
        List<ViewChange> set = viewChanges(viewChanges, NEW_VIEW);
        NewView nv = new NewView(NEW_VIEW, set, rePropose(rePropose), 1);
        Defect defect = RULES.checkNewView(nv, replica -> null);
        assertEquals(refusedAs, defect == null ? "" : defect.name());
    }

    /** A VIEW-CHANGE already verified from its sender is not verified again (retransmissions are frequent). */
    @ParameterizedTest(name = "verified before: {0}")
    @CsvSource({"true, ''", "false, INVALID_VIEW_CHANGE"})
    void aViewChangeVerifiedBeforeIsNotVerifiedAgain(boolean verifiedBefore, String refusedAs) {
        // Unverifiable here (signed for another pillar), but equal to what the pillar verified itself.
        ViewChange odd = ViewChange.signed(1, NEW_VIEW, 0, List.of(), List.of(), List.of(), 2, AUTH);
        List<ViewChange> set = List.of(viewChange("_", 0, NEW_VIEW), viewChange("_", 1, NEW_VIEW), odd);
        Defect defect = RULES.checkNewView(new NewView(NEW_VIEW, set, List.of(), 1),
                replica -> verifiedBefore && replica == 2 ? odd : null);
        assertEquals(refusedAs, defect == null ? "" : defect.name());
    }

    // ------------------------------------------------------------------ a VIEW-CHANGE on its own

    /** Validity of one VIEW-CHANGE (replica 0's, for view 5) on its own. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                                  view change;              refused as
            empty;                                    _;                        ''
            P and Q in the window;                    P1:a@0 Q1:a@0 Q1:b@2;     ''
            with a stable checkpoint;                 h4 P5:a@1 Q5:a@1;         ''
            a P entry at or below h;                  h4 P4:a@1;                BAD_VIEW_CHANGE
            a P entry above h + L;                    P9:a@1;                   BAD_VIEW_CHANGE
            a Q entry above h + L;                    Q9:a@1;                   BAD_VIEW_CHANGE
            a P entry of the new view;                P1:a@5;                   BAD_VIEW_CHANGE
            a Q entry of the new view;                Q1:a@5;                   BAD_VIEW_CHANGE
            two P entries for one instance;           P1:a@0 P1:b@1;            BAD_VIEW_CHANGE
            one Q entry twice;                        Q1:a@0 Q1:a@0;            BAD_VIEW_CHANGE
            more than n Q entries for one instance;   Q1:a@0 Q1:b@0 Q1:x@0 Q1:-@0 Q1:c@0; BAD_VIEW_CHANGE
            a P body that does not match;             P1:a/b@0;                 BAD_VIEW_CHANGE
            a forged stable proof;                    !forgedProof;             BAD_VIEW_CHANGE
            altered after signing;                    !altered;                 BAD_SIGNATURE
            signed for another pillar;                !pillar1;                 BAD_SIGNATURE
            """)
    void aViewChangeIsCheckedOnItsOwn(String name, String viewChange, String refusedAs) {
        Refusal refusal = RULES.checkViewChange(viewChange(viewChange, 0, NEW_VIEW));
        assertEquals(refusedAs, refusal == null ? "" : refusal.name());
    }

    // ------------------------------------------------------------------ notation

    private static List<ViewChange> viewChanges(String spec, long newView) {
        List<ViewChange> set = new ArrayList<>();
        String[] parts = spec.split("\\|");
        for (int r = 0; r < parts.length; r++) {
            String part = parts[r].trim();
            set.add(part.equals("!again") ? set.get(set.size() - 1) : viewChange(part, r, newView));
        }
        return set;
    }

    private static ViewChange viewChange(String spec, int replica, long newView) {
        switch (spec) {
            case "!altered": {
                ViewChange signed = viewChange("P1:a@0 Q1:a@0", replica, newView);
                return new ViewChange(newView, 0, List.of(), List.of(), signed.prePrepared(), replica, signed.signature());
            }
            case "!pillar1":
                return ViewChange.signed(1, newView, 0, List.of(), List.of(), List.of(), replica, AUTH);
            case "!view4":
                return viewChange("_", replica, 4);
            case "!forgedProof": {
                List<Checkpoint> proof = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    proof.add(new Checkpoint(4, STATE, r, new byte[16]));
                }
                return ViewChange.signed(0, newView, 4, proof, List.of(), List.of(), replica, AUTH);
            }
            default:
                break;
        }
        long h = 0;
        List<Checkpoint> proof = List.of();
        List<PrePrepare> prepared = new ArrayList<>();
        List<PrePrepared> prePrepared = new ArrayList<>();
        for (String entry : spec.trim().split("\\s+")) {
            if (entry.equals("_")) {
                continue;
            }
            if (entry.startsWith("h")) {
                h = Long.parseLong(entry.substring(1));
                proof = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    proof.add(Checkpoint.signed(h, STATE, r, AUTH));
                }
                continue;
            }
            long seq = Long.parseLong(entry.substring(1, entry.indexOf(':')));
            String value = entry.substring(entry.indexOf(':') + 1, entry.indexOf('@'));
            long view = Long.parseLong(entry.substring(entry.indexOf('@') + 1));
            if (entry.charAt(0) == 'P') {
                prepared.add(prePrepare(view, seq, value));
            } else {
                prePrepared.add(new PrePrepared(seq, view, digest(value)));
            }
        }
        return ViewChange.signed(0, newView, h, proof, prepared, prePrepared, replica, AUTH);
    }

    /** {@code a}: request a; {@code -}: EMPTY; {@code a/b}: b's body under a's digest. */
    private static PrePrepare prePrepare(long view, long seq, String value) {
        if (value.equals("-")) {
            return PrePrepare.empty(view, seq);
        }
        if (value.contains("/")) {
            return new PrePrepare(view, seq, digest(value.substring(0, 1)), REQUESTS.get(value.substring(2)));
        }
        return new PrePrepare(view, seq, digest(value), REQUESTS.get(value));
    }

    private static byte[] digest(String value) {
        if (value.equals("-")) {
            return PrePrepare.empty(0, 1).digest();
        }
        Request r = REQUESTS.get(value.substring(0, 1));
        return r != null ? r.digest() : PbftDigests.sha256(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** {@code 1:a 2:- 3:b@4} from the notation: instance, value, and the view if not the new one. */
    private static List<PrePrepare> rePropose(String spec) {
        List<PrePrepare> out = new ArrayList<>();
        for (String entry : spec.trim().split("\\s+")) {
            if (entry.isEmpty()) {
                continue;
            }
            long seq = Long.parseLong(entry.substring(0, entry.indexOf(':')));
            String value = entry.substring(entry.indexOf(':') + 1);
            long view = NEW_VIEW;
            if (value.contains("@")) {
                view = Long.parseLong(value.substring(value.indexOf('@') + 1));
                value = value.substring(0, value.indexOf('@'));
            }
            out.add(prePrepare(view, seq, value));
        }
        return out;
    }

    private static String describe(List<PrePrepare> choices) {
        if (choices == null) {
            return "wait";
        }
        StringJoiner out = new StringJoiner(" ");
        for (PrePrepare pp : choices) {
            out.add(pp.seq() + ":" + name(pp));
        }
        return out.toString();
    }

    private static String name(PrePrepare pp) {
        if (pp.isEmpty()) {
            return "-";
        }
        for (Map.Entry<String, Request> e : REQUESTS.entrySet()) {
            if (Arrays.equals(e.getValue().digest(), pp.digest())) {
                return e.getKey();
            }
        }
        return "?";
    }
}
