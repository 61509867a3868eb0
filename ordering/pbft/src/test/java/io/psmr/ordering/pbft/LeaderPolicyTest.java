package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The blacklist rule of {@link LeaderPolicy}, one case per row of docs/pbft.md's "Leader selection". */
class LeaderPolicyTest {

    private static final PbftConfig F1 = new PbftConfig(1, 2, 16, 64, 20, 160, 2, 10, LeaderRotation.ROTATING, 64, 64)
            .withLeaderSelection(LeaderSelection.BLACKLIST, 4, 100);
    private static final PbftConfig F2 = new PbftConfig(2, 2, 16, 64, 20, 160, 2, 10, LeaderRotation.ROTATING, 64, 64)
            .withLeaderSelection(LeaderSelection.BLACKLIST, 4, 100);

    private static ViewChange vc(int replica, int suspect, LeaderPolicy leaders) {
        return new ViewChange(1, 0, List.of(), List.of(), List.of(), suspect, leaders, replica, new byte[0]);
    }

    @Test
    void withNoExclusionTheLeaderIsTheRotationOverAllReplicas() {
        for (long seq = 1; seq < 40; seq++) {
            for (long view = 0; view < 6; view++) {
                assertEquals(F1.leader(seq, view), LeaderPolicy.NONE.leader(seq, view, F1), seq + "/" + view);
            }
        }
    }

    @Test
    void aSuspectNamedByFPlusOneIsExcludedFromTheNewViewsFirstUndecidedInstance() {
        LeaderPolicy p = LeaderPolicy.agreed(List.of(vc(0, 3, LeaderPolicy.NONE), vc(1, 3, LeaderPolicy.NONE),
                vc(2, 1, LeaderPolicy.NONE)), 10, F1);
        assertEquals(1, p.strikes(3));
        assertEquals(109, p.excludedThrough(3)); // instances 10..109: 100 of them
        assertEquals(0, p.strikes(1));
        assertTrue(p.excluded(3, 10, F1));
        assertTrue(p.excluded(3, 109, F1));
        assertFalse(p.excluded(3, 110, F1));
        for (long seq = 10; seq <= 109; seq++) {
            for (long view = 1; view < 5; view++) {
                int leader = p.leader(seq, view, F1);
                assertTrue(leader != 3 && leader >= 0, "instance " + seq + " view " + view + " led by " + leader);
            }
        }
        // The rotation over the three others reaches each of them.
        java.util.Set<Integer> leaders = new java.util.TreeSet<>();
        for (long seq = 10; seq <= 109; seq++) {
            leaders.add(p.leader(seq, 1, F1));
        }
        assertEquals(java.util.Set.of(0, 1, 2), leaders);
        assertEquals(F1.leader(110, 1), p.leader(110, 1, F1)); // readmitted
    }

    @Test
    void aSuspectNamedByFOrFewerIsNotBlamed() {
        LeaderPolicy p = LeaderPolicy.agreed(List.of(vc(0, 3, LeaderPolicy.NONE), vc(1, 2, LeaderPolicy.NONE),
                vc(2, LeaderPolicy.NO_SUSPECT, LeaderPolicy.NONE)), 10, F1);
        assertEquals(LeaderPolicy.NONE, p);
    }

    @Test
    void aRepeatedSuspicionDoublesTheBackoffUpToTheCap() {
        LeaderPolicy p = LeaderPolicy.NONE;
        long from = 1;
        long[] expected = {100, 200, 400, 800, 1600, 3200, 6400, 6400, 6400};
        for (long backoff : expected) {
            p = p.suspect(2, from, F1);
            assertEquals(from - 1 + backoff, p.excludedThrough(2), "strikes " + p.strikes(2));
            from = p.excludedThrough(2) + 1; // suspected again at once after readmission
        }
        assertEquals(PbftConfig.MAX_BACKOFF_DOUBLINGS + 1, p.strikes(2));
    }

    @Test
    void aReplicaThatLedCleanlyAsLongAsItWasOutIsForgiven() {
        LeaderPolicy p = LeaderPolicy.NONE.suspect(2, 1, F1).suspect(2, 101, F1); // 2 strikes: out 101..300
        assertEquals(2, p.strikes(2));
        assertEquals(300, p.excludedThrough(2));
        LeaderPolicy soon = p.suspect(2, 301 + 150, F1); // led 150 instances < 200: not forgiven
        assertEquals(3, soon.strikes(2));
        LeaderPolicy later = p.suspect(2, 301 + 201, F1); // led more than 200: forgiven, one strike
        assertEquals(1, later.strikes(2));
        assertEquals(301 + 201 - 1 + 100, later.excludedThrough(2));
    }

    @Test
    void atMostFAreExcludedAtOnceThoseExcludedLongestStayOut() {
        LeaderPolicy p = LeaderPolicy.NONE.suspect(1, 1, F1).suspect(1, 101, F1).suspect(2, 50, F1); // 1 through 300, 2 through 149
        assertTrue(p.excluded(1, 60, F1));
        assertFalse(p.excluded(2, 60, F1)); // f = 1: 2 still leads
        for (long seq = 60; seq < 140; seq++) {
            assertTrue(p.leader(seq, 0, F1) != 1);
        }
        // With f = 2 both stay out.
        LeaderPolicy q = LeaderPolicy.NONE.suspect(1, 1, F2).suspect(2, 50, F2).suspect(4, 50, F2); // through 100, 149, 149
        assertTrue(q.excluded(2, 60, F2) && q.excluded(4, 60, F2) && !q.excluded(1, 60, F2));
        LeaderPolicy tie = LeaderPolicy.NONE.suspect(2, 50, F2).suspect(4, 50, F2).suspect(5, 50, F2);
        assertTrue(tie.excluded(2, 60, F2) && tie.excluded(4, 60, F2) && !tie.excluded(5, 60, F2)); // ties: lower ids stay out
    }

    @Test
    void fLiarsCannotMoveAnAgreedValuePastEveryCorrectOne() {
        LeaderPolicy honest = LeaderPolicy.NONE.suspect(3, 1, F2); // replica 3 out through 100
        LeaderPolicy liar = LeaderPolicy.of(new long[] {1_000_000, 1_000_000, 0, 0, 0, 0, 0}, new int[] {7, 7, 0, 0, 0, 0, 0});
        List<ViewChange> set = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            set.add(vc(r, LeaderPolicy.NO_SUSPECT, honest));
        }
        set.add(vc(5, 0, liar));
        set.add(vc(6, 0, liar)); // two liars (f = 2) naming 0 and claiming 0 and 1 out for ever
        LeaderPolicy p = LeaderPolicy.agreed(set, 50, F2);
        assertEquals(honest, p);
        assertFalse(p.excluded(0, 60, F2));
        assertTrue(p.excluded(3, 60, F2));
    }

    @Test
    void fixedLeadersSkipAnExcludedPrimary() {
        PbftConfig fixed = new PbftConfig(1, 2, 16, 64, 20, 160, 2, 10, LeaderRotation.FIXED, 64, 64);
        LeaderPolicy p = LeaderPolicy.NONE.suspect(1, 1, fixed);
        assertEquals(2, p.leader(5, 1, fixed));
        assertEquals(0, p.leader(5, 4, fixed));
    }

    @Test
    void aViewChangeMustCarryOneValueEachOrNone() {
        assertTrue(LeaderPolicy.NONE.wellFormed(F1));
        assertFalse(LeaderPolicy.of(new long[3], new int[3]).wellFormed(F1));
        assertFalse(LeaderPolicy.of(new long[4], new int[] {0, 0, PbftConfig.MAX_BACKOFF_DOUBLINGS + 2, 0}).wellFormed(F1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LeaderPolicy.of(new long[] {0, -1}, new int[2]));
        assertEquals("leader policy: negative value for replica 1", e.getMessage());
    }

    @Test
    void theCodecCarriesSuspectAndPolicyAndTheSignatureCoversThem() {
        LeaderPolicy p = LeaderPolicy.NONE.suspect(3, 10, F1);
        ViewChange v = vc(1, 3, p);
        ViewChange decoded = (ViewChange) PbftCodec.decode(PbftCodec.encode(v));
        assertEquals(v, decoded);
        assertEquals(3, decoded.suspect());
        assertEquals(p, decoded.leaders());
        ChecksumAuthenticator auth = new ChecksumAuthenticator();
        ViewChange signed = ViewChange.signed(0, 1, 0, List.of(), List.of(), List.of(), 3, p, 1, auth);
        assertTrue(signed.signatureValid(0, auth));
        ViewChange otherSuspect = new ViewChange(1, 0, List.of(), List.of(), List.of(), 2, p, 1, signed.signature());
        assertFalse(otherSuspect.signatureValid(0, auth));
    }
}
