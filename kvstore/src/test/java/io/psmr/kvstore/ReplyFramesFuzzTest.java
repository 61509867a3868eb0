package io.psmr.kvstore;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.psmr.kvstore.net.ReplyProtocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes what a proxy reads from a replica's reply connection and from a Ratis reply: the handshake
 * ({@link ReplyProtocol#decodeHandshake}), one reply ({@link KvCodec#decodeReply}) and a reply list
 * ({@link KvCodec#decodeReplies}), each on the same input.
 *
 * <p>Property: each either refuses ({@link IllegalArgumentException} for the handshake, {@link KvDecodeException}
 * for replies, with a message) or decodes to a value that re-encodes to the same bytes. A reply's detail is UTF-8
 * text of at most {@link KvResult#MAX_DETAIL_CHARS} characters, cut beyond: not canonical when malformed or longer,
 * so then the property is decode, encode, decode (the second reply equals the first).
 */
class ReplyFramesFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void decode(byte[] bytes) throws KvDecodeException {
        try {
            long proxy = ReplyProtocol.decodeHandshake(bytes);
            assertArrayEquals(bytes, ReplyProtocol.encodeHandshake(proxy));
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage());
        }
        try {
            checkReply(bytes, KvCodec.decodeReply(bytes));
        } catch (KvDecodeException e) {
            assertNotNull(e.getMessage());
        }
        List<KvReply> replies;
        try {
            replies = KvCodec.decodeReplies(bytes);
        } catch (KvDecodeException e) {
            assertNotNull(e.getMessage());
            return;
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 4, bytes.length - 4);
        for (KvReply r : replies) {
            byte[] one = new byte[in.getInt()];
            in.get(one);
            checkReply(one, r);
        }
    }

    private static void checkReply(byte[] bytes, KvReply reply) throws KvDecodeException {
        byte[] again = KvCodec.encodeReply(reply);
        int valueBytes = reply.result().value() == null ? 0 : reply.result().value().length;
        byte[] detail = Arrays.copyOfRange(bytes, 43 + valueBytes, bytes.length);
        if (canonical(detail)) {
            assertArrayEquals(bytes, again, "re-encoding of " + reply);
        }
        KvReply second = KvCodec.decodeReply(again);
        assertEquals(reply.replicaId(), second.replicaId());
        assertEquals(reply.proxyId(), second.proxyId());
        assertEquals(reply.batchId(), second.batchId());
        assertEquals(reply.index(), second.index());
        assertEquals(reply.instance(), second.instance());
        assertEquals(reply.result().status(), second.result().status());
        assertArrayEquals(reply.result().value(), second.result().value());
        assertEquals(reply.result().detail(), second.result().detail());
    }

    private static boolean canonical(byte[] detail) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(detail)).toString();
            return s.length() <= KvResult.MAX_DETAIL_CHARS;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    static List<byte[]> seeds() {
        List<KvReply> replies = List.of(new KvReply(1, 7, 100, 0, 55, KvResult.ok()),
                new KvReply(2, 7, 100, 1, 55, KvResult.ok(KvFuzzData.bytes("value"))),
                new KvReply(1, 7, 101, KvReply.WHOLE_BATCH, 56, new KvResult(KvStatus.MALFORMED, null, "bad batché")));
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(ReplyProtocol.encodeHandshake(7));
        for (KvReply r : replies) {
            seeds.add(KvCodec.encodeReply(r));
        }
        seeds.add(KvCodec.encodeReplies(replies));
        return seeds;
    }

    @Test
    void validFramesHoldTheProperty() throws IOException, KvDecodeException {
        for (byte[] seed : seeds()) {
            decode(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "decode", seeds());
    }
}
