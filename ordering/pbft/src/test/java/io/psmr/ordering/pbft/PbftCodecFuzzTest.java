package io.psmr.ordering.pbft;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.Complaint;
import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link PbftCodec#decode}, the decoder of every PBFT message a replica receives (inside an envelope, or as
 * a client request). Property: bytes either decode to a message that re-encodes to the same bytes (the encoding is
 * canonical), or are refused with an {@link IllegalArgumentException} naming the problem (the codec's documented
 * refusal). Any other exception or error, a stack overflow included, is a finding. docs/fuzzing.md.
 */
class PbftCodecFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decode(byte[] bytes) {
        PbftMessage m;
        try {
            m = PbftCodec.decode(bytes);
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage());
            return;
        }
        assertArrayEquals(bytes, PbftCodec.encode(m), "re-encoding of " + m);
    }

    static List<PbftMessage> messages() {
        byte[] digest = PbftDigests.of(1, 1, new byte[] {1, 2, 3});
        Request request = new Request(11, 2, new byte[] {9, 8, 7}, List.of(new byte[] {1, 1}, new byte[] {2, 2}));
        PrePrepare pp = new PrePrepare(1, 5, digest, request);
        Checkpoint cp = new Checkpoint(4, new byte[] {5, 5}, 2, new byte[] {6, 6, 6});
        ViewChange vc = new ViewChange(2, 4, List.of(cp), List.of(pp), List.of(new PrePrepared(5, 1, digest)),
                1, LeaderPolicy.of(new long[] {0, 3, 0, 0}, new int[] {0, 1, 0, 0}), 3, new byte[] {4, 4});
        return List.of(request, pp, PrePrepare.empty(1, 6), new Prepare(1, 5, digest, 2), new Commit(1, 5, digest, 3),
                cp, vc, new Complaint(2, 1), new NewView(2, List.of(vc), List.of(pp), 2));
    }

    static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        for (PbftMessage m : messages()) {
            seeds.add(PbftCodec.encode(m));
        }
        return seeds;
    }

    @Test
    void validMessagesHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            decode(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "decode", seeds());
    }

    /** Once a stack overflow: a PRE-PREPARE may nest only a REQUEST, and the tag is checked before recursing. */
    @Test
    void deeplyNestedPrePreparesAreRefusedNotRecursed() {
        int depth = 100_000;
        ByteBuffer b = ByteBuffer.allocate(depth * 22);
        for (int i = 0; i < depth; i++) {
            b.put((byte) 2).putLong(1).putLong(1).putInt(0).put((byte) 1); // PRE-PREPARE carrying a "request"
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PbftCodec.decode(b.array()));
        assertTrue(e.getMessage().contains("expected Request"), e.getMessage());
    }
}
