package io.psmr.kvstore.checkpoint;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link CheckpointManifest#parse}, read from disk and from a peer's archive. Property: the bytes are either
 * refused with an {@link IOException} naming the problem, or parse to a manifest whose bytes parse to an equal
 * manifest (decode, encode, decode). The manifest is in {@link java.util.Properties} form, which has many spellings
 * of one manifest (order, spaces, escapes, comments, leading zeros), so the input is not compared byte for byte.
 */
class CheckpointManifestFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void parse(byte[] bytes) throws IOException {
        CheckpointManifest m;
        try {
            m = CheckpointManifest.parse(bytes, "fuzz");
        } catch (IOException e) {
            assertNotNull(e.getMessage());
            return;
        }
        assertEquals(m, CheckpointManifest.parse(m.toBytes(), "fuzz"));
    }

    static List<byte[]> seeds() {
        return List.of(new CheckpointManifest(1234, 0xfedcba9876543210L, 17, 65536, 0xdeadbeefL, 120, 0x1234L).toBytes(),
                new CheckpointManifest(0, 0, 0, 0, 0, 0, 0).toBytes());
    }

    @Test
    void validManifestsHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            parse(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "parse", seeds());
    }

    /** Properties throws IllegalArgumentException for a malformed escape; a manifest is refused as malformed. */
    @Test
    void aMalformedEscapeIsRefusedAsMalformed() {
        IOException e = assertThrows(IOException.class,
                () -> CheckpointManifest.parse("format=\\u12".getBytes(StandardCharsets.US_ASCII), "peer"));
        assertTrue(e.getMessage().startsWith("peer: the manifest is malformed"), e.getMessage());
    }
}
