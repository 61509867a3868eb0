package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link Pem#decode}, which reads a cluster's TLS files (docs/fuzzing.md). Property: the text is refused with
 * an {@link IllegalArgumentException} naming the problem, or its blocks, encoded again and decoded, are the same
 * bytes. PEM is not canonical (text outside blocks, line lengths and white space are free), so the input is not
 * compared byte for byte.
 */
class PemFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decode(byte[] data) {
        List<byte[]> blocks;
        try {
            blocks = Pem.decode(Pem.CERTIFICATE, new String(data, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException refused) {
            assertNotNull(refused.getMessage());
            return;
        }
        StringBuilder again = new StringBuilder();
        for (byte[] der : blocks) {
            again.append(Pem.encode(Pem.CERTIFICATE, der));
        }
        List<byte[]> decoded = Pem.decode(Pem.CERTIFICATE, again.toString());
        assertEquals(blocks.size(), decoded.size());
        for (int i = 0; i < blocks.size(); i++) {
            assertArrayEquals(blocks.get(i), decoded.get(i));
        }
    }

    @Test
    void validTextHoldsTheProperty() {
        byte[] der = new byte[300];
        for (int i = 0; i < der.length; i++) {
            der[i] = (byte) (i * 7);
        }
        String one = Pem.encode(Pem.CERTIFICATE, der);
        decode(one.getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(der, Pem.decode(Pem.CERTIFICATE, "# a comment\n" + one + "text between\n").get(0));
        decode("-----BEGIN CERTIFICATE-----\nnot closed".getBytes(StandardCharsets.US_ASCII));
    }
}
