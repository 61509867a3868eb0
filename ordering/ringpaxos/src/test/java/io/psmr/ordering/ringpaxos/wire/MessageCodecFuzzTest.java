package io.psmr.ordering.ringpaxos.wire;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.psmr.ordering.ringpaxos.Message;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link MessageCodec#decode} and {@link MessageCodec#decodeHello}, the decoders of every Ring Paxos frame a
 * node receives. Property: a frame either decodes to a value that re-encodes to the same bytes (the encoding is
 * canonical), or is refused with a {@link MalformedFrameException} that names the problem. Any other outcome
 * (another exception, an error, a different re-encoding) is a finding. docs/fuzzing.md.
 */
class MessageCodecFuzzTest {

    private static final int RECEIVER = 3;
    private static final MessageCodec CODEC = new MessageCodec(1 << 20, 4096, 1024);

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decode(byte[] frame) {
        Message m;
        try {
            m = CODEC.decode(frame);
            assertArrayEquals(frame, CODEC.encode(m), "re-encoding of " + m);
        } catch (MalformedFrameException e) {
            assertNotNull(e.getMessage());
        }
        try {
            int sender = CODEC.decodeHello(frame, RECEIVER);
            assertArrayEquals(frame, CODEC.encodeHello(sender, RECEIVER));
        } catch (MalformedFrameException e) {
            assertNotNull(e.getMessage());
        }
    }

    static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(CODEC.encodeHello(7, RECEIVER));
        for (Message m : MessageCodecTest.randomMessages(new Random(23))) {
            seeds.add(CODEC.encode(m));
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
