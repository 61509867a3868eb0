package io.psmr.kvstore.ratis;

import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
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
}
