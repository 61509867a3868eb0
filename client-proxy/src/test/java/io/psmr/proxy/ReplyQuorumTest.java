package io.psmr.proxy;

import static io.psmr.proxy.ReplyQuorum.Outcome.DECIDED;
import static io.psmr.proxy.ReplyQuorum.Outcome.DISAGREED;
import static io.psmr.proxy.ReplyQuorum.Outcome.DUPLICATE;
import static io.psmr.proxy.ReplyQuorum.Outcome.PENDING;
import static io.psmr.proxy.ReplyQuorum.Outcome.SETTLED;
import static io.psmr.proxy.ReplyQuorum.Outcome.UNKNOWN_REPLICA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplyQuorum} as a table: each row offers one reply and states the outcome, the decided result and the
 * conflicting count after it. No proxy, no threads, no clocks.
 */
class ReplyQuorumTest {

    static final ReplyTrust F1 = ReplyTrust.matching(1, 1, 2, 3, 4);
    static final KvResult V = KvResult.ok(bytes("v"));
    static final KvResult W = KvResult.ok(bytes("w"));
    static final KvResult NOT_FOUND = KvResult.notFound();
    static final KvResult REJECTED = KvResult.of(KvStatus.REJECTED, "no");

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** One reply offered, and what must hold after it. */
    record Row(int replica, KvResult result, ReplyQuorum.Outcome outcome, KvResult decided, int conflicting) {
    }

    static Row row(int replica, KvResult result, ReplyQuorum.Outcome outcome, KvResult decided, int conflicting) {
        return new Row(replica, result, outcome, decided, conflicting);
    }

    /** Offers each row's reply in turn and asserts its outcome, the decided result and the conflicting count. */
    static ReplyQuorum play(ReplyTrust trust, Row... rows) {
        ReplyQuorum q = new ReplyQuorum(trust);
        for (int i = 0; i < rows.length; i++) {
            Row r = rows[i];
            String at = "row " + i + " " + r;
            assertEquals(r.outcome(), q.offer(r.replica(), r.result()), at);
            assertEquals(r.decided(), q.decided(), at);
            assertEquals(r.conflicting(), q.conflicting(), at);
        }
        return q;
    }

    @Test
    void underFirstReplyTheFirstReplyDecidesAndNothingIsCountedPerReplica() {
        ReplyQuorum q = play(ReplyTrust.FIRST_REPLY,
                row(99, V, DECIDED, V, 0),
                row(2, NOT_FOUND, SETTLED, V, 0),
                row(99, W, SETTLED, V, 0));
        assertFalse(q.disagreed());
        assertEquals(List.of(), q.answers());
        assertEquals(0, q.silent());
    }

    @Test
    void fPlusOneMatchingRepliesDecide() {
        play(F1,
                row(1, V, PENDING, null, 0),
                row(2, V, DECIDED, V, 0),
                row(3, V, SETTLED, V, 0),
                row(4, V, SETTLED, V, 0));
    }

    @Test
    void aLiarReplyingFirstNeitherDecidesNorBlocksTheCorrectAnswer() {
        ReplyQuorum q = play(F1,
                row(4, W, PENDING, null, 0),
                row(1, V, PENDING, null, 0),
                row(2, V, DECIDED, V, 1),
                row(3, V, SETTLED, V, 1));
        assertEquals(List.of(new ReplyQuorum.Answer(V, List.of(1, 2, 3)), new ReplyQuorum.Answer(W, List.of(4))),
                q.answers(), "listed in the set's order, whatever order the replies came in");
    }

    @Test
    void aDecisionWithThreeAnswersHeardCountsTheTwoOthersAsConflicting() {
        // As the proxy's end-to-end test: forged, right, a third answer, then the second right one.
        play(F1,
                row(4, W, PENDING, null, 0),
                row(1, V, PENDING, null, 0),
                row(3, NOT_FOUND, PENDING, null, 0),
                row(2, V, DECIDED, V, 2));
    }

    @Test
    void aReplicaVotesOnceAndItsFirstVoteStands() {
        ReplyQuorum q = play(F1,
                row(1, V, PENDING, null, 0),
                row(1, V, DUPLICATE, null, 0),
                row(1, NOT_FOUND, DUPLICATE, null, 0),
                row(2, NOT_FOUND, PENDING, null, 0),
                row(3, V, DECIDED, V, 1),
                row(3, NOT_FOUND, DUPLICATE, V, 1),
                row(4, NOT_FOUND, SETTLED, V, 2));
        assertEquals(0, q.silent());
    }

    @Test
    void aReplicaOutsideTheSetIsRefused() {
        ReplyQuorum q = play(F1,
                row(99, V, UNKNOWN_REPLICA, null, 0),
                row(0, V, UNKNOWN_REPLICA, null, 0),
                row(1, V, PENDING, null, 0),
                row(5, V, UNKNOWN_REPLICA, null, 0),
                row(2, V, DECIDED, V, 0));
        assertEquals(List.of(new ReplyQuorum.Answer(V, List.of(1, 2))), q.answers());
        assertEquals(2, q.silent());
    }

    @Test
    void whenEveryReplicaDisagreesTheLastReplyLosesTheCommand() {
        KvResult a = KvResult.ok(bytes("a"));
        KvResult b = KvResult.ok(bytes("b"));
        ReplyQuorum q = play(F1,
                row(1, a, PENDING, null, 0),
                row(2, b, PENDING, null, 0),
                row(3, NOT_FOUND, PENDING, null, 0),
                row(4, REJECTED, DISAGREED, null, 4));
        assertTrue(q.disagreed());
        assertEquals(List.of(new ReplyQuorum.Answer(a, List.of(1)), new ReplyQuorum.Answer(b, List.of(2)),
                new ReplyQuorum.Answer(NOT_FOUND, List.of(3)), new ReplyQuorum.Answer(REJECTED, List.of(4))), q.answers());
        assertEquals("the replicas disagree on command 0 of batch 1 of proxy 1 (x): no answer can reach f+1 = 2"
                + " matching replies of MATCHING(f=1, replicas [1, 2, 3, 4]); answers: OK value 1 bytes 0x61 from"
                + " replica(s) 1; OK value 1 bytes 0x62 from replica(s) 2; NOT_FOUND from replica(s) 3; REJECTED \"no\""
                + " from replica(s) 4. More than f replicas are faulty, or correct ones answered different deliveries"
                + " of a retried batch; the command may have executed", q.describeDisagreement("command 0 of batch 1 of proxy 1 (x)"));
    }

    @Test
    void withOneReplicaLeftASplitThatItCouldBreakIsNotADisagreement() {
        // f = 2 of 7: quorum 3. Six votes split 2-2-2: replica 7 can still make any of them 3.
        ReplyQuorum q = play(ReplyTrust.matching(2, 1, 2, 3, 4, 5, 6, 7),
                row(1, V, PENDING, null, 0),
                row(2, W, PENDING, null, 0),
                row(3, NOT_FOUND, PENDING, null, 0),
                row(4, V, PENDING, null, 0),
                row(5, W, PENDING, null, 0),
                row(6, NOT_FOUND, PENDING, null, 0),
                row(7, W, DECIDED, W, 4));
        assertFalse(q.disagreed());
    }

    @Test
    void disagreementIsDeclaredBeforeEveryReplicaAnswersAndLaterVotesConflict() {
        // f = 2 of 7: quorum 3. Six distinct answers: the one replica left can lift none of them to 3.
        ReplyQuorum q = play(ReplyTrust.matching(2, 1, 2, 3, 4, 5, 6, 7),
                row(1, V, PENDING, null, 0),
                row(2, W, PENDING, null, 0),
                row(3, NOT_FOUND, PENDING, null, 0),
                row(4, REJECTED, PENDING, null, 0),
                row(5, KvResult.exists(), PENDING, null, 0),
                row(6, KvResult.ok(), DISAGREED, null, 6),
                row(7, V, SETTLED, null, 7),
                row(7, W, DUPLICATE, null, 7));
        assertTrue(q.disagreed());
        assertNull(q.decided());
        assertEquals(0, q.silent());
    }

    @Test
    void withTwoSilentReplicasASplitIsNotYetADisagreement() {
        ReplyQuorum q = play(F1,
                row(1, V, PENDING, null, 0),
                row(2, W, PENDING, null, 0));
        assertFalse(q.disagreed());
        assertEquals(2, q.silent());
        assertEquals("the replicas disagree on c: no answer can reach f+1 = 2 matching replies of MATCHING(f=1, replicas"
                + " [1, 2, 3, 4]); answers: OK value 1 bytes 0x76 from replica(s) 1; OK value 1 bytes 0x77 from"
                + " replica(s) 2; 2 replica(s) not heard from. More than f replicas are faulty, or correct ones answered"
                + " different deliveries of a retried batch; the command may have executed", q.describeDisagreement("c"));
    }

    @Test
    void answersAreComparedByContentNotIdentity() {
        KvResult v1 = KvResult.ok(bytes("v"));
        KvResult v2 = KvResult.ok(bytes("v"));
        ReplyQuorum q = play(F1,
                row(3, v1, PENDING, null, 0),
                row(1, v2, DECIDED, v1, 0));
        assertSame(v2, q.decided(), "the deciding reply's result is the one kept");
    }

    @Test
    void longValuesAndDetailsAreCutInTheDescription() {
        KvResult longValue = KvResult.ok(bytes("0123456789"));
        KvResult longDetail = KvResult.of(KvStatus.REJECTED, "d".repeat(100));
        ReplyQuorum q = play(ReplyTrust.matching(1, 1, 2, 3),
                row(1, longValue, PENDING, null, 0),
                row(2, longDetail, PENDING, null, 0));
        assertEquals("the replicas disagree on c: no answer can reach f+1 = 2 matching replies of MATCHING(f=1, replicas"
                + " [1, 2, 3]); answers: OK value 10 bytes 0x3031323334353637... from replica(s) 1; REJECTED \""
                + "d".repeat(80) + "...\" from replica(s) 2; 1 replica(s) not heard from. More than f replicas are"
                + " faulty, or correct ones answered different deliveries of a retried batch; the command may have"
                + " executed", q.describeDisagreement("c"));
    }
}
