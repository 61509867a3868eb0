package io.psmr.ordering.pbft.net;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.psmr.ordering.pbft.net.ProposalFrames.Refused;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link ProposalFrames}, the frames of a PBFT replica's proposal port, read the way
 * {@link PbftProposalServer} (hello, PROPOSE) and {@link PbftProposerClient} (ORDERED, REFUSED) read them.
 * Property: each reading either refuses with an {@link IllegalArgumentException} naming the problem, or gives fields
 * that re-encode to the same frame. A REFUSED frame's reason is UTF-8 text, which is not canonical (a malformed
 * sequence decodes to U+FFFD), so for it the property is decode, encode, decode: the second reading equals the
 * first. docs/fuzzing.md.
 */
class ProposalFramesFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void read(byte[] frame) {
        try {
            ProposalFrames.checkHello(frame);
            assertArrayEquals(frame, ProposalFrames.hello());
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage());
        }
        byte type;
        try {
            type = ProposalFrames.type(frame);
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage());
            return;
        }
        long correlation = ProposalFrames.correlation(frame);
        try {
            if (type == ProposalFrames.PROPOSE) {
                assertArrayEquals(frame, ProposalFrames.propose(correlation, ProposalFrames.value(frame)));
            } else if (type == ProposalFrames.ORDERED) {
                assertArrayEquals(frame, ProposalFrames.ordered(correlation, ProposalFrames.instance(frame)));
            } else if (type == ProposalFrames.REFUSED) {
                Refused code = ProposalFrames.refusedCode(frame);
                String reason = ProposalFrames.refusedReason(frame);
                byte[] again = ProposalFrames.refused(correlation, code, reason);
                assertEquals(code, ProposalFrames.refusedCode(again));
                assertEquals(ProposalFrames.correlation(frame), ProposalFrames.correlation(again));
                String second = ProposalFrames.refusedReason(again);
                // The encoder cuts a reason at MAX_REASON_BYTES, possibly inside a character.
                assertEquals(ProposalFrames.refusedReason(ProposalFrames.refused(correlation, code, second)), second);
            }
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage());
        }
    }

    static List<byte[]> seeds() {
        return List.of(ProposalFrames.hello(), ProposalFrames.propose(7, new byte[] {1, 2, 3}),
                ProposalFrames.ordered(7, 42), ProposalFrames.refused(7, Refused.OVERLOADED, "replica 1: queue full"),
                ProposalFrames.refused(8, Refused.OUTCOME_UNKNOWN, "closed é"));
    }

    @Test
    void validFramesHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            read(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "read", seeds());
    }
}
