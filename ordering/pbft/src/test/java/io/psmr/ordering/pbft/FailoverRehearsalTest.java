package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The rehearsal really orders, crashes a replica and changes views on every pillar, and leaves no thread behind. */
class FailoverRehearsalTest {

    @Test
    void ordersEverythingAndChangesViewsOnEveryPillarAfterTheCrash() {
        PbftConfig shape = PbftConfig.defaults();
        FailoverRehearsal.Outcome o = FailoverRehearsal.run(shape, Duration.ofSeconds(60));
        assertNull(o.failure(), o.toString());
        assertTrue(o.completed(), o.toString());
        long expected = 2L * FailoverRehearsal.REQUESTS_PER_PHASE; // before the crash and after it
        assertEquals(expected, o.submitted(), o.toString());
        assertEquals(expected, o.delivered(), o.toString());
        assertTrue(o.minView() >= 1, "every pillar of every correct replica changed views: " + o);
        assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive()
                && t.getName().startsWith("psmr-pbft-rehearsal")), "a rehearsal thread outlived run()");
    }

    @Test
    void rehearsesTheLeaderRotationAndPillarsItIsGivenWithFourReplicas() {
        // f = 2, fixed leaders, 3 pillars: the rehearsal keeps the pillars and the rotation, and runs 4 replicas.
        PbftConfig fixed = new PbftConfig(2, 3, 1024, 2048, 50, 6400, 0, 50, LeaderRotation.FIXED, 1 << 20, 10_000);
        FailoverRehearsal.Outcome o = FailoverRehearsal.run(fixed, Duration.ofSeconds(60));
        assertTrue(o.completed(), o.toString());
        assertEquals(2L * FailoverRehearsal.REQUESTS_PER_PHASE, o.delivered(), o.toString());
        assertTrue(o.minView() >= 1, o.toString());
    }

    @Test
    void refusesANonPositiveLimitAndABadLabel() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FailoverRehearsal.run(PbftConfig.defaults(), Duration.ZERO));
        assertEquals("rehearsal limit must be positive: PT0S", e.getMessage());
        IllegalArgumentException label = assertThrows(IllegalArgumentException.class,
                () -> PbftReplicaNode.Settings.defaults().withLabel("Rehearsal-1"));
        assertEquals("replica label must be lower-case letters, got Rehearsal-1", label.getMessage());
    }
}
