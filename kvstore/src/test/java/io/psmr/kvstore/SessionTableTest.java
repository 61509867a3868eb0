package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionTableTest {

    @Test
    void newDuplicateOutOfOrderAndStaleRequestsWithinASession() {
        SessionTable t = new SessionTable(4, 10, 1_000);
        long s = t.open(3, 0);
        assertEquals(3 * SessionTable.SESSION_ID_STRIDE, s, "the log assigns the id: instance × 65,536 + index");
        SessionTable.Admission a1 = t.admit(s, 1, 4);
        assertFalse(a1.duplicate());
        assertNull(a1.refusal());
        SessionTable.Admission again = t.admit(s, 1, 4);
        assertTrue(again.duplicate());
        assertSame(a1.entry(), again.entry());

        assertFalse(t.admit(s, 5, 5).duplicate()); // skips 2..4: highest 5, window (1, 5]
        SessionTable.Admission late3 = t.admit(s, 3, 5); // in window, never seen: new
        assertFalse(late3.duplicate());
        assertNull(late3.refusal());
        assertTrue(t.admit(s, 3, 5).duplicate());
        SessionTable.Admission stale = t.admit(s, 1, 6); // 1 <= 5 - 4: too old
        assertEquals(KvStatus.REJECTED, stale.refusalStatus());
        assertNull(stale.entry());
        assertTrue(stale.refusal().startsWith("request 1 of session " + s + " is older than the reply cache window"),
                stale.refusal());
        long other = t.open(6, 1);
        assertFalse(t.admit(other, 1, 7).duplicate(), "sessions are independent");
    }

    @Test
    void aSessionIdleLongerThanTheTimeoutExpiresAndItsRequestsAreNeverExecutedAgain() {
        SessionTable t = new SessionTable(4, 10, 100);
        long s = t.open(1, 0);
        t.admit(s, 1, 2).entry().complete(KvResult.ok());
        t.expire(102); // idle 100 instances: still open
        assertTrue(t.admit(s, 1, 102).duplicate(), "used at 102: renewed");
        t.expire(202);
        assertEquals(1, t.size());
        t.expire(203); // idle 101 instances
        assertEquals(0, t.size());
        assertEquals(1, t.expiredCount());
        SessionTable.Admission retry = t.admit(s, 1, 203);
        assertEquals(KvStatus.SESSION_EXPIRED, retry.refusalStatus());
        assertNull(retry.entry(), "nothing to execute");
        assertEquals("session " + s + " is not open: it expired after 100 idle instances or was evicted for a newer one "
                + "(at most 10 sessions); request 1 was not executed now, and whether an earlier copy of it executed is "
                + "unknown: open a new session", retry.refusal());
    }

    @Test
    void aSessionThatWasNeverOpenedIsRefusedNamingIt() {
        SessionTable t = new SessionTable(4, 10, 100);
        SessionTable.Admission made_up = t.admit(7, 1, 5);
        assertEquals(KvStatus.SESSION_EXPIRED, made_up.refusalStatus());
        assertEquals("session 7 was never opened: send OPEN_SESSION and use the id it returns", made_up.refusal());
        long future = 9 * SessionTable.SESSION_ID_STRIDE;
        assertTrue(t.admit(future, 1, 5).refusal().contains("was never opened"), "an id from a later instance");
    }

    @Test
    void theLeastRecentlyUsedSessionIsEvictedBeyondTheBound() {
        SessionTable t = new SessionTable(2, 3, 1_000);
        long s1 = t.open(1, 0);
        long s2 = t.open(1, 1);
        long s3 = t.open(1, 2);
        t.admit(s1, 1, 2).entry().complete(KvResult.ok()); // s1 used again: s2 is now the eldest
        long s4 = t.open(3, 0);
        assertEquals(3, t.size());
        assertEquals(1, t.evictedCount());
        assertTrue(t.admit(s1, 1, 4).duplicate());
        assertEquals(KvStatus.SESSION_EXPIRED, t.admit(s2, 1, 4).refusalStatus(), "evicted, never re-executed");
        assertNull(t.admit(s3, 1, 4).refusal());
        assertNull(t.admit(s4, 1, 4).refusal());
        assertThrows(IllegalArgumentException.class, () -> new SessionTable(0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new SessionTable(1, 1, 0));
    }

    @Test
    void theTableDecidesAlikeAfterACheckpointRoundTrip() throws Exception {
        SessionTable original = new SessionTable(4, 2, 50);
        long a = original.open(1, 0);
        long b = original.open(1, 1);
        original.admit(a, 1, 2).entry().complete(KvResult.ok());
        original.admit(a, 2, 2).entry().complete(KvResult.ok("x".getBytes(StandardCharsets.UTF_8)));
        original.admit(b, 5, 3).entry().complete(KvResult.notFound());
        original.admit(a, 3, 4).entry().complete(KvResult.of(KvStatus.FULL, "store full"));

        SessionTable copy = new SessionTable(4, 2, 50);
        copy.readFrom(new DataInputStream(new ByteArrayInputStream(bytes(original))));
        assertEquals(Arrays.toString(bytes(original)), Arrays.toString(bytes(copy)), "equal tables write equal bytes");

        for (SessionTable t : List.of(original, copy)) {
            SessionTable.Admission dup = t.admit(a, 2, 5);
            assertTrue(dup.duplicate());
            assertEquals(KvResult.ok("x".getBytes(StandardCharsets.UTF_8)), dup.entry().result());
            assertEquals(KvResult.of(KvStatus.FULL, "store full"), t.admit(a, 3, 5).entry().result());
            // b was last used at 3: it expires at 54 in both, a (used at 5) does not.
            t.expire(54);
            assertEquals(KvStatus.SESSION_EXPIRED, t.admit(b, 6, 54).refusalStatus());
            assertNull(t.admit(a, 4, 54).refusal());
        }
    }

    @Test
    void aTableWithAResultStillUnknownOrOtherSettingsIsRefused() throws Exception {
        SessionTable pending = new SessionTable(4, 2, 10);
        pending.admit(pending.open(1, 0), 1, 1);
        assertThrows(IOException.class, () -> bytes(pending));

        SessionTable small = new SessionTable(2, 2, 10);
        small.admit(small.open(1, 0), 1, 1).entry().complete(KvResult.ok());
        SessionTable other = new SessionTable(4, 2, 10);
        IOException e = assertThrows(IOException.class,
                () -> other.readFrom(new DataInputStream(new ByteArrayInputStream(bytes(small)))));
        assertEquals("the checkpoint's session table has window 2, 2 sessions and a timeout of 10 instances, but this "
                + "replica's has 4, 2 and 10; replicas must share them", e.getMessage());
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

    static byte[] bytes(SessionTable t) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        t.writeTo(new DataOutputStream(out));
        return out.toByteArray();
    }
}
