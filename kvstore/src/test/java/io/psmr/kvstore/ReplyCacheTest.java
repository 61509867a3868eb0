package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplyCacheTest {

    @Test
    void newDuplicateOutOfOrderAndStaleRequests() {
        ReplyCache cache = new ReplyCache(4, 10);
        ReplyCache.Admission a1 = cache.admit(7, 1);
        assertFalse(a1.duplicate());
        assertNull(a1.refusal());
        ReplyCache.Admission again = cache.admit(7, 1);
        assertTrue(again.duplicate());
        assertSame(a1.entry(), again.entry());

        assertFalse(cache.admit(7, 5).duplicate()); // skips 2..4: highest 5, window (1, 5]
        ReplyCache.Admission late3 = cache.admit(7, 3); // in window, never seen: new
        assertFalse(late3.duplicate());
        assertNull(late3.refusal());
        assertTrue(cache.admit(7, 3).duplicate());
        ReplyCache.Admission stale = cache.admit(7, 1); // 1 <= 5 - 4: too old
        assertNotNull(stale.refusal());
        assertNull(stale.entry());
        assertTrue(stale.refusal().contains("request 1 of client 7 is older than the reply cache window"), stale.refusal());
        assertTrue(cache.admit(8, 1) != null && !cache.admit(8, 2).duplicate(), "clients are independent");
    }

    @Test
    void theLeastRecentlyActiveClientIsForgottenBeyondTheBound() {
        ReplyCache cache = new ReplyCache(2, 3);
        cache.admit(1, 1);
        cache.admit(2, 1);
        cache.admit(3, 1);
        cache.admit(1, 2); // client 1 is active again: 2 is now the eldest
        cache.admit(4, 1);
        assertEquals(3, cache.clients());
        assertTrue(cache.admit(1, 2).duplicate());
        assertFalse(cache.admit(2, 1).duplicate(), "client 2 was forgotten, so its request looks new");
        assertThrows(IllegalArgumentException.class, () -> new ReplyCache(0, 1));
    }

    @Test
    void cachedRepliesAnswerWaitersOnce() {
        CachedReply entry = new CachedReply();
        List<KvResult> got = new ArrayList<>();
        entry.whenComplete(got::add);
        assertTrue(got.isEmpty());
        entry.complete(KvResult.exists());
        entry.complete(KvResult.ok()); // only the first counts
        entry.whenComplete(got::add);
        assertEquals(List.of(KvResult.exists(), KvResult.exists()), got);
        assertEquals(KvResult.exists(), entry.result());
    }
}
