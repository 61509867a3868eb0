package io.psmr.kvstore;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link KvCodec#decodeCommand}. Property: bytes either decode to a command that re-encodes to the same
 * bytes, or are refused with a MALFORMED {@link KvDecodeException} naming the problem. docs/fuzzing.md.
 */
class KvCommandFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decodeCommand(byte[] bytes) {
        KvCommand c;
        try {
            c = KvCodec.decodeCommand(bytes);
        } catch (KvDecodeException e) {
            assertNotNull(e.getMessage());
            assertEquals(KvStatus.MALFORMED, e.status());
            return;
        }
        assertArrayEquals(bytes, KvCodec.encodeCommand(c), "re-encoding of " + c);
    }

    static List<byte[]> seeds() {
        return KvFuzzData.commands().stream().map(KvCodec::encodeCommand).toList();
    }

    @Test
    void validCommandsHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            decodeCommand(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "decodeCommand", seeds());
    }
}
