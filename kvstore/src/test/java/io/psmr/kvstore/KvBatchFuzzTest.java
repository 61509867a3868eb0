package io.psmr.kvstore;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.SummaryBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link KvCodec#decodeBatch}, the decoder of every value a replica receives from atomic broadcast. The
 * input's first byte chooses the replica's detection settings ({@link KvFuzzData#DETECTIONS}); the rest is the
 * batch without its CRC-32C, which the test appends, so that the fuzzer reaches the commands and the summary
 * instead of failing the checksum (a wrong checksum is one comparison, covered by the seeds' neighbours).
 *
 * <p>Property: the batch is either refused with a {@link KvDecodeException} naming the problem, or decodes to a
 * batch whose encoding decodes to a batch with the same encoding (decode, encode, decode). A bitmap travels in
 * Roaring's portable form, which has several encodings of one set (array, bitmap or run containers), so bytes are
 * compared exactly only for summaries without bitmaps.
 */
class KvBatchFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decodeBatch(byte[] input) throws KvDecodeException {
        if (input.length == 0) {
            return;
        }
        ConflictDetection detection = KvFuzzData.detection(input[0]);
        byte[] bytes = withChecksum(Arrays.copyOfRange(input, 1, input.length));
        KvBatch batch;
        try {
            batch = KvCodec.decodeBatch(bytes, detection, KvLimits.defaults());
        } catch (KvDecodeException e) {
            assertNotNull(e.getMessage());
            return;
        }
        byte[] again = KvCodec.encodeBatch(batch);
        if (!detection.mode().usesBitmaps()) {
            assertArrayEquals(bytes, again, "re-encoding of " + batch);
        }
        KvBatch second = KvCodec.decodeBatch(again, detection, KvLimits.defaults());
        assertEquals(batch.commands(), second.commands());
        assertArrayEquals(again, KvCodec.encodeBatch(second));
    }

    static byte[] withChecksum(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).array();
    }

    static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        List<KvCommand> commands = KvFuzzData.commands();
        for (int d = 0; d < KvFuzzData.DETECTIONS.size(); d++) {
            ConflictDetection detection = KvFuzzData.DETECTIONS.get(d);
            byte[] batch = KvCodec.encodeBatch(7, 100 + d, commands, SummaryBuilder.summarize(detection, commands));
            ByteBuffer seed = ByteBuffer.allocate(batch.length - 3).put((byte) d).put(batch, 0, batch.length - 4);
            seeds.add(seed.array());
        }
        return seeds;
    }

    @Test
    void validBatchesHoldTheProperty() throws IOException, KvDecodeException {
        for (byte[] seed : seeds()) {
            decodeBatch(seed);
            // A valid seed must decode, or the property would hold vacuously.
            KvCodec.decodeBatch(withChecksum(Arrays.copyOfRange(seed, 1, seed.length)), KvFuzzData.detection(seed[0]),
                    KvLimits.defaults());
        }
        FuzzSeeds.writeIfAsked(getClass(), "decodeBatch", seeds());
    }
}
