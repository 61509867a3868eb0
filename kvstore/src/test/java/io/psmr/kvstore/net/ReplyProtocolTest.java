package io.psmr.kvstore.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The reply connection's handshake: its fixed bytes, and refusals that name the problem. */
class ReplyProtocolTest {

    @Test
    void theHandshakeHasTheDocumentedBytes() {
        assertEquals("5053525001" + "0000000000000005", HexFormat.of().formatHex(ReplyProtocol.encodeHandshake(5)));
        assertEquals(ReplyProtocol.HANDSHAKE_BYTES, ReplyProtocol.encodeHandshake(-1).length);
    }

    @Test
    void anyProxyIdRoundTrips() {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        System.out.println("ReplyProtocolTest seed " + seed);
        Random rnd = new Random(seed);
        for (long id : new long[] {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE}) {
            assertEquals(id, ReplyProtocol.decodeHandshake(ReplyProtocol.encodeHandshake(id)));
        }
        for (int i = 0; i < 1000; i++) {
            long id = rnd.nextLong();
            assertEquals(id, ReplyProtocol.decodeHandshake(ReplyProtocol.encodeHandshake(id)), "seed " + seed);
        }
    }

    @Test
    void badHandshakesAreRefusedNamingTheProblem() {
        byte[] good = ReplyProtocol.encodeHandshake(7);
        assertTrue(refusal(new byte[0]).contains("13 bytes"));
        assertTrue(refusal(new byte[14]).contains("has 14"));
        byte[] magic = good.clone();
        magic[0] = 'G';
        assertTrue(refusal(magic).contains("bad magic"));
        byte[] version = good.clone();
        version[4] = 2;
        assertTrue(refusal(version).contains("version 2"));
        assertArrayEquals(ReplyProtocol.encodeHandshake(7), good);
    }

    private static String refusal(byte[] body) {
        return assertThrows(IllegalArgumentException.class, () -> ReplyProtocol.decodeHandshake(body)).getMessage();
    }
}
