package io.psmr.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BroadcastLimitsTest {

    @Test
    void defaultsAreThoseBothBroadcastsHad() {
        assertEquals(new BroadcastLimits(1024, 1024, 64), BroadcastLimits.DEFAULTS);
    }

    @Test
    void eachWitherChangesOneBound() {
        assertEquals(new BroadcastLimits(8, 1024, 64), BroadcastLimits.DEFAULTS.withRetainedInstances(8));
        assertEquals(new BroadcastLimits(1024, 3, 64), BroadcastLimits.DEFAULTS.withMaxPendingProposals(3));
        assertEquals(new BroadcastLimits(1024, 1024, 2), BroadcastLimits.DEFAULTS.withMaxLearners(2));
    }

    @Test
    void aBoundBelowOneIsRefusedByName() {
        assertEquals("retainedInstances must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> BroadcastLimits.DEFAULTS.withRetainedInstances(0)).getMessage());
        assertEquals("maxPendingProposals must be at least 1, got -1",
                assertThrows(IllegalArgumentException.class, () -> BroadcastLimits.DEFAULTS.withMaxPendingProposals(-1)).getMessage());
        assertEquals("maxLearners must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new BroadcastLimits(1, 1, 0)).getMessage());
    }
}
