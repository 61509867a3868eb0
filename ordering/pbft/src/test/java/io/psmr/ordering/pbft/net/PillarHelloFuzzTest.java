package io.psmr.ordering.pbft.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link PillarHello#decode}, the first frame of a PBFT pillar connection (docs/fuzzing.md). Property: the
 * bytes are refused with an {@link IllegalArgumentException} naming the problem, or the hello re-encodes to the same
 * bytes.
 */
class PillarHelloFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decode(byte[] data) {
        PillarHello hello;
        try {
            hello = PillarHello.decode(data);
        } catch (IllegalArgumentException refused) {
            assertNotNull(refused.getMessage());
            return;
        }
        assertArrayEquals(data, hello.encode());
    }

    @Test
    void validHellosHoldTheProperty() {
        decode(new PillarHello(1, 2, 0).encode());
        decode(new PillarHello(3, 0, 7).encode());
        assertThrows(IllegalArgumentException.class, () -> PillarHello.decode(new byte[3]));
    }
}
