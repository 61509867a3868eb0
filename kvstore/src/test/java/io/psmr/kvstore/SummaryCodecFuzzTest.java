package io.psmr.kvstore;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link SummaryCodec#decode}, the conflict summary section of a batch (mode, bitmap header, Roaring
 * bitmaps), on its own so that every input reaches it. The input's first byte chooses the replica's detection
 * settings; the rest is the summary, after {@link KvFuzzData#commands()}.
 *
 * <p>Property: the summary is either refused with a {@link KvDecodeException} naming the problem, or decodes to a
 * summary whose encoding decodes to a summary with the same encoding (decode, encode, decode). Roaring's portable
 * form has several encodings of one set, so the input's bytes are compared exactly only without bitmaps.
 */
class SummaryCodecFuzzTest {

    private static final SummaryCodec.Refusals REFUSALS = new SummaryCodec.Refusals() {
        @Override
        public KvDecodeException malformed(String message) {
            return new KvDecodeException(KvStatus.MALFORMED, false, 0, 0, message);
        }

        @Override
        public KvDecodeException rejected(String message) {
            return new KvDecodeException(KvStatus.REJECTED, false, 0, 0, message);
        }
    };

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decode(byte[] input) throws KvDecodeException {
        if (input.length == 0) {
            return;
        }
        ConflictDetection detection = KvFuzzData.detection(input[0]);
        ByteBuffer in = ByteBuffer.wrap(input, 1, input.length - 1);
        ConflictSummary summary;
        try {
            summary = SummaryCodec.decode(in, detection, KvFuzzData.commands(), REFUSALS);
        } catch (KvDecodeException e) {
            assertNotNull(e.getMessage());
            return;
        }
        byte[] again = encode(summary);
        if (!detection.mode().usesBitmaps()) {
            assertArrayEquals(Arrays.copyOfRange(input, 1, in.position()), again);
        }
        ConflictSummary second = SummaryCodec.decode(ByteBuffer.wrap(again), detection, KvFuzzData.commands(), REFUSALS);
        assertArrayEquals(again, encode(second));
    }

    private static byte[] encode(ConflictSummary summary) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            SummaryCodec.encode(summary, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        for (int d = 0; d < KvFuzzData.DETECTIONS.size(); d++) {
            byte[] summary = encode(SummaryBuilder.summarize(KvFuzzData.DETECTIONS.get(d), KvFuzzData.commands()));
            seeds.add(ByteBuffer.allocate(1 + summary.length).put((byte) d).put(summary).array());
        }
        return seeds;
    }

    @Test
    void validSummariesHoldTheProperty() throws IOException, KvDecodeException {
        for (byte[] seed : seeds()) {
            decode(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "decode", seeds());
    }
}
