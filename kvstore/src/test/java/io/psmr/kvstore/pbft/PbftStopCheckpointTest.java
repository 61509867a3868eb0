package io.psmr.kvstore.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The arithmetic of {@link PbftStopCheckpoint}: which checkpoint instance a stop aims at, and when a replica holds it.
 * The whole stop runs against replica processes in {@code ClusterPbftStopProcessTest} (bench).
 */
class PbftStopCheckpointTest {

    @Test
    void theStopAimsAtTheFirstCheckpointInstanceAtOrAboveItsSession() {
        assertEquals(512, PbftStopCheckpoint.target(1, 512));
        assertEquals(512, PbftStopCheckpoint.target(511, 512));
        assertEquals(512, PbftStopCheckpoint.target(512, 512), "a session opened at a checkpoint instance needs no reads");
        assertEquals(1024, PbftStopCheckpoint.target(513, 512));
        assertEquals(7, PbftStopCheckpoint.target(7, 1));
        assertThrows(IllegalArgumentException.class, () -> PbftStopCheckpoint.target(0, 512));
        assertThrows(IllegalArgumentException.class, () -> PbftStopCheckpoint.target(5, 0));
    }

    @Test
    void aReplicaHoldsTheCheckpointWhenItServesAndExecutedNothingAfterIt() {
        assertTrue(new PbftStopCheckpoint.Replica("replica-1", true, 512, 512).holds(512));
        assertFalse(new PbftStopCheckpoint.Replica("replica-1", true, 512, 0).holds(512), "executed, checkpoint not written yet");
        assertFalse(new PbftStopCheckpoint.Replica("replica-1", true, 509, 0).holds(512), "behind");
        assertFalse(new PbftStopCheckpoint.Replica("replica-1", false, 512, 512).holds(512), "not serving");
        assertFalse(new PbftStopCheckpoint.Replica("replica-1", true, 530, 512).holds(512), "executed past it");
        assertEquals("replica-2 (executed 509, newest checkpoint 0)",
                new PbftStopCheckpoint.Replica("replica-2", true, 509, 0).describe());
        assertEquals("replica-3 (not serving, newest checkpoint 512)",
                new PbftStopCheckpoint.Replica("replica-3", false, 0, 512).describe());
    }
}
