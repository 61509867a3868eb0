package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ForgedReplies}: every reply goes out with a different, deterministic result; routing fields unchanged. */
class ForgedRepliesTest {

    @Test
    void everyResultIsReplacedByADeterministicLie() {
        byte[] v = "value".getBytes(StandardCharsets.US_ASCII);
        List<KvResult> truths = List.of(KvResult.ok(v), KvResult.ok(), KvResult.ok(new byte[0]), KvResult.notFound(),
                KvResult.exists(), KvResult.of(KvStatus.FULL, "store full"), KvResult.of(KvStatus.MALFORMED, "bad"));
        List<KvReply> sent = new ArrayList<>();
        ForgedReplies liar = new ForgedReplies(sent::add);
        for (int i = 0; i < truths.size(); i++) {
            liar.route(new KvReply(3, 77, 5, i, 42, truths.get(i)));
        }
        assertEquals(truths.size(), liar.forged());
        for (int i = 0; i < truths.size(); i++) {
            KvReply r = sent.get(i);
            assertEquals(List.of(3, 77L, 5L, i, 42L), List.of(r.replicaId(), r.proxyId(), r.batchId(), r.index(), r.instance()));
            assertNotEquals(truths.get(i), r.result(), "a lie for " + truths.get(i));
            assertEquals(ForgedReplies.forge(truths.get(i)), r.result(), "the same lie every time");
        }
        assertArrayEquals(new byte[] {'v', 'a', 'l', 'u', (byte) ('e' ^ 0x5a)}, sent.get(0).result().value(),
                "a read answered with a changed value");
        assertEquals(KvStatus.NOT_FOUND, sent.get(1).result().status(), "OK without a value becomes NOT_FOUND");
        assertEquals(KvResult.ok("forged".getBytes(StandardCharsets.US_ASCII)), sent.get(3).result(), "NOT_FOUND becomes a value");
        assertEquals(KvResult.ok(), sent.get(5).result(), "FULL becomes OK");
    }

    @Test
    void aDormantLiarRepliesTruthfullyUntilWoken() {
        List<KvReply> sent = new ArrayList<>();
        ForgedReplies liar = new ForgedReplies(sent::add, true);
        KvReply truth = new KvReply(3, 77, 5, 0, 42, KvResult.notFound());
        liar.route(truth);
        assertEquals(List.of(truth), sent, "dormant: the true reply, unchanged");
        assertEquals(0, liar.forged());
        liar.wake();
        liar.route(truth);
        assertEquals(KvResult.ok("forged".getBytes(StandardCharsets.US_ASCII)), sent.get(1).result(), "awake: a lie");
        assertEquals(1, liar.forged());
    }
}
