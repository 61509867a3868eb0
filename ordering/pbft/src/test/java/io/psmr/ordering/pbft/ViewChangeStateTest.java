package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import io.psmr.ordering.pbft.ViewChangeState.ComplaintStep;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The view-change state of one pillar, with f = 1 (n = 4, quorum 3), a request timeout of 20 ticks
 * and a view-change timeout capped at 50.
 */
class ViewChangeStateTest {

    private static final PbftConfig CONFIG = new PbftConfig(1, 1, 4, 8, 20, 50, 2, 10, LeaderRotation.FIXED, 64, 64);
    private static final Authenticator AUTH = new ChecksumAuthenticator();

    private final ViewChangeState state = new ViewChangeState(CONFIG);

    private static ViewChange viewChange(long newView, int replica) {
        return ViewChange.signed(0, newView, 0, List.of(), List.of(), List.of(), replica, AUTH);
    }

    /**
     * Complaints in view 2, written {@code replica:target} ({@code self:target} for this replica's own,
     * replica 0); a complaint for a later view counts against this one, one for this view or earlier does not.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                                 complaints;          step
            none;                                    '';                  NONE
            one other;                               1:3;                 NONE
            f+1 others;                              1:3 2:3;             COMPLAIN
            f+1, one for a later view;               1:3 2:7;             COMPLAIN
            f+1 with this replica's own;             self:3 1:3;          NONE
            2f+1;                                    1:3 2:3 3:4;         LEAVE
            2f+1 with this replica's own;            self:3 1:3 2:3;      LEAVE
            complaints for this view do not count;   1:2 2:2 3:1;         NONE
            a replica counts once;                   1:3 1:4 1:5;         NONE
            """)
    void complaintsAgainstTheView(String name, String complaints, ComplaintStep step) {
        for (String c : complaints.split(" ")) {
            if (c.isEmpty()) {
                continue;
            }
            String who = c.substring(0, c.indexOf(':'));
            long target = Long.parseLong(c.substring(c.indexOf(':') + 1));
            if (who.equals("self")) {
                state.complain(0, target);
            } else {
                state.complaint(Integer.parseInt(who), target);
            }
        }
        assertEquals(step, state.complaintStep(2));
    }

    /** Seen views, written {@code replica:view}, in view 2: f+1 replicas above it name the view to join. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                          seen;             join
            one replica ahead;                1:5;              -1
            f+1 ahead: the lower one;         1:5 2:3;          3
            three ahead: the (f+1)-th;        1:5 2:3 3:9;      5
            not ahead;                        1:2 2:1;          -1
            a replica's highest counts;       1:5 1:3 2:4;      4
            """)
    void viewsSeenAhead(String name, String seen, long join) {
        OptionalLong last = OptionalLong.empty();
        for (String s : seen.split(" ")) {
            int replica = Integer.parseInt(s.substring(0, s.indexOf(':')));
            last = state.sawView(replica, Long.parseLong(s.substring(s.indexOf(':') + 1)), 2);
        }
        assertEquals(join, last.orElse(-1));
    }

    @Test
    void theTimerRunsOnlyWithAQuorumAndDoublesUpToItsCap() {
        state.start(viewChange(1, 0), 0);
        assertFalse(state.timerExpired(100), "alone in the view change: no timeout");
        state.accept(1, viewChange(1, 1));
        state.accept(2, viewChange(2, 2)); // a VIEW-CHANGE for a later view also wants view 1 over
        assertTrue(state.quorumForTarget());
        assertFalse(state.timerExpired(119));
        assertTrue(state.timerExpired(120), "20 ticks after the quorum formed");
        state.start(viewChange(2, 0), 120);
        state.accept(1, viewChange(2, 1));
        assertFalse(state.timerExpired(159));
        assertTrue(state.timerExpired(160), "40 ticks: doubled");
        state.start(viewChange(3, 0), 160);
        state.accept(1, viewChange(3, 1));
        state.accept(2, viewChange(3, 2));
        assertFalse(state.timerExpired(209));
        assertTrue(state.timerExpired(210), "50 ticks: capped");
        state.viewWorks();
        state.start(viewChange(4, 0), 210);
        state.accept(1, viewChange(4, 1));
        state.accept(2, viewChange(4, 2));
        assertTrue(state.timerExpired(230), "back to 20 once a view worked");
    }

    @Test
    void aReplicaAsksOnceMoreForTheNewViewOfAViewThatFPlusOneWorkIn() {
        state.start(viewChange(4, 0), 0);
        state.sawView(1, 4, 4);
        state.sawView(2, 4, 4); // in (or wanting) view 4, but no normal-case message from it
        assertFalse(state.installedByOthers(4), "views seen in VIEW-CHANGEs say nothing of a NEW-VIEW");
        state.sawWorking(1, 4);
        assertFalse(state.installedByOthers(4), "one replica may be the faulty one");
        state.sawWorking(2, 5);
        assertTrue(state.installedByOthers(4), "f+1 work in view 4 or above");
        assertFalse(state.installedByOthers(6));
        assertTrue(state.quorumForTarget());
        assertTrue(state.timerExpired(20));
        assertTrue(state.askAgain(20));
        assertFalse(state.timerExpired(59));
        assertTrue(state.timerExpired(60), "restarted at 20 with the timeout doubled to 40");
        assertFalse(state.askAgain(60), "once per target view: its primary may have crashed since");
        state.start(viewChange(5, 0), 60);
        assertFalse(state.askAgain(60), "nobody was seen working in view 5");
        state.sawWorking(3, 5);
        assertTrue(state.askAgain(60), "view 5 is installed by replicas 2 and 3");
        state.installed(5);
        assertFalse(state.installedByOthers(4), "forgotten once a view above is installed");
    }

    @Test
    void theNewPrimaryDecidesFromTheViewChangesForExactlyItsView() {
        state.start(viewChange(5, 1), 0);
        state.accept(3, viewChange(5, 3));
        state.accept(2, viewChange(6, 2));
        state.accept(2, viewChange(5, 2)); // an older one does not replace a newer one
        state.accept(0, viewChange(5, 0));
        assertEquals(List.of(viewChange(5, 0), viewChange(5, 1), viewChange(5, 3)), state.viewChangesFor(5));
        assertEquals(viewChange(6, 2), state.latest(2));
        state.sentNewView(new PbftMessage.NewView(5, state.viewChangesFor(5), List.of(), 1));
        state.complaint(2, 6);
        state.installed(5);
        assertEquals(5, state.targetView());
        assertEquals(List.of(), state.viewChangesFor(5), "VIEW-CHANGEs up to the installed view are forgotten");
        assertEquals(viewChange(6, 2), state.latest(2));
        assertNull(state.latest(0));
        assertTrue(state.complains(2, 5));
        assertEquals(5, state.sentNewView().view(), "kept to resend to a late VIEW-CHANGE");
    }

    @Test
    void viewsSeenAreHandedOverAndJoinedOnlyWithFPlusOneAboveTheCurrentView() {
        assertArrayEquals(new long[] {-1, -1, -1, -1}, state.viewsSeen());
        assertEquals(OptionalLong.empty(), state.sawView(1, 5, 0), "one replica is not f+1");
        assertArrayEquals(new long[] {-1, 5, -1, -1}, state.viewsSeen());

        ViewChangeState successor = new ViewChangeState(CONFIG);
        successor.rememberSeen(new long[] {-1, 5, 3, -1});
        assertEquals(OptionalLong.of(3), successor.joinable(0), "the smaller of the f+1 highest");
        assertEquals(OptionalLong.empty(), successor.joinable(3), "only one seen above view 3");
        successor.rememberSeen(new long[] {-1, 2, -1, 7}); // a lower sighting does not lower a higher one
        assertArrayEquals(new long[] {-1, 5, 3, 7}, successor.viewsSeen());
        assertEquals(OptionalLong.of(5), successor.joinable(3));
        assertTrue(successor.installedByOthers(5), "handed-over views count as views the others work in");
        assertFalse(successor.installedByOthers(6));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> successor.rememberSeen(new long[3]));
        assertEquals("views seen of 3 replicas; the cluster has 4", e.getMessage());
    }

    @Test
    void aComplaintIsNewOnlyForAHigherView() {
        assertTrue(state.complaint(1, 1));
        assertFalse(state.complaint(1, 1), "a retransmission");
        assertFalse(state.complaint(1, 0));
        assertTrue(state.complaint(1, 2));
        assertTrue(state.complains(1, 1));
    }
}
