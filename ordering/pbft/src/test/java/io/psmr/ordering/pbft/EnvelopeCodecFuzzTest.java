package io.psmr.ordering.pbft;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link EnvelopeCodec#decode}, the decoder of every frame between PBFT replicas (routing, message, MAC).
 * Property: a frame either decodes to an envelope that re-encodes to the same bytes, or is refused with an
 * {@link IllegalArgumentException} naming the problem. docs/fuzzing.md.
 */
class EnvelopeCodecFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decode(byte[] frame) {
        PbftEnvelope e;
        try {
            e = EnvelopeCodec.decode(frame);
        } catch (IllegalArgumentException refused) {
            assertNotNull(refused.getMessage());
            return;
        }
        assertArrayEquals(frame, EnvelopeCodec.encode(e), "re-encoding of " + e);
    }

    static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        int pillar = 0;
        for (PbftMessage m : PbftCodecFuzzTest.messages()) {
            seeds.add(EnvelopeCodec.encode(new PbftEnvelope(1, 2, pillar++ % 3, m, new byte[32])));
        }
        return seeds;
    }

    @Test
    void validFramesHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            decode(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "decode", seeds());
    }
}
