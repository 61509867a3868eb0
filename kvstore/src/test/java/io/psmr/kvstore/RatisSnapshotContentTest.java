package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a Ratis replica's snapshot and replies carry: reply lists, and the reply cache's round trip. */
class RatisSnapshotContentTest {

    @Test
    void aReplyListRoundTripsAndTruncationIsMalformed() throws Exception {
        List<KvReply> replies = List.of(
                new KvReply(2, 7, 9, 0, 41, KvResult.ok("v".getBytes(StandardCharsets.UTF_8))),
                new KvReply(2, 7, 9, 1, 41, KvResult.notFound()),
                new KvReply(2, 7, 9, KvReply.WHOLE_BATCH, 41, KvResult.of(KvStatus.REJECTED, "why")));
        byte[] bytes = KvCodec.encodeReplies(replies);
        assertEquals(replies, KvCodec.decodeReplies(bytes));
        assertEquals(List.of(), KvCodec.decodeReplies(KvCodec.encodeReplies(List.of())));
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        KvDecodeException e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeReplies(cut));
        assertEquals(KvStatus.MALFORMED, e.status());
    }

    @Test
    void theReplyCacheDecidesAlikeAfterASnapshotRoundTrip() throws Exception {
        ReplyCache original = new ReplyCache(4, 2);
        original.admit(1, 1).entry().complete(KvResult.ok());
        original.admit(1, 2).entry().complete(KvResult.ok("x".getBytes(StandardCharsets.UTF_8)));
        original.admit(2, 5).entry().complete(KvResult.notFound());
        original.admit(1, 3).entry().complete(KvResult.of(KvStatus.FAILED, "boom"));

        ReplyCache copy = new ReplyCache(4, 2);
        copy.readFrom(new DataInputStream(new ByteArrayInputStream(bytes(original))));

        for (ReplyCache c : List.of(original, copy)) {
            ReplyCache.Admission dup = c.admit(1, 2);
            assertTrue(dup.duplicate());
            assertEquals(KvResult.ok("x".getBytes(StandardCharsets.UTF_8)), dup.entry().result());
            assertEquals(KvResult.of(KvStatus.FAILED, "boom"), c.admit(1, 3).entry().result());
            ReplyCache.Admission fresh = c.admit(2, 6);
            assertFalse(fresh.duplicate(), "a new request of client 2");
            fresh.entry().complete(KvResult.ok());
            // Both tables evict the same least recently admitted client for a third one.
            c.admit(3, 1).entry().complete(KvResult.ok());
            assertEquals(2, c.clients());
        }
        assertEquals(java.util.Arrays.toString(bytes(original)), java.util.Arrays.toString(bytes(copy)),
                "equal tables write equal bytes");
    }

    @Test
    void aCacheWithAResultStillUnknownOrAnotherWindowIsRefused() throws Exception {
        ReplyCache pending = new ReplyCache(4, 2);
        pending.admit(1, 1);
        assertThrows(IOException.class, () -> bytes(pending));

        ReplyCache small = new ReplyCache(2, 2);
        small.admit(1, 1).entry().complete(KvResult.ok());
        ReplyCache other = new ReplyCache(4, 2);
        IOException e = assertThrows(IOException.class,
                () -> other.readFrom(new DataInputStream(new ByteArrayInputStream(bytes(small)))));
        assertTrue(e.getMessage().contains("window"), e.getMessage());
        assertNull(other.admit(9, 1).refusal());
    }

    private static byte[] bytes(ReplyCache c) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        c.writeTo(new DataOutputStream(out));
        return out.toByteArray();
    }
}
