package io.psmr.kvstore.mlbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.mlbft.PartitionQueues.Appended;
import io.psmr.kvstore.mlbft.PartitionQueues.Request;
import org.junit.jupiter.api.Test;

/** MLBFT's execution stage as data: the run rule, deadlocks decided from the queues alone, bounds and refusals. */
class PartitionQueuesTest {

    private static final int[] P0 = {0};
    private static final int[] P01 = {0, 1};

    @Test
    void aSimpleRequestRunsWhenItHeadsItsQueueAndLeavesWhenFinished() {
        PartitionQueues<String> q = new PartitionQueues<>(2, 8);
        assertEquals(Appended.QUEUED, q.append(0, 1, 1, P0, 0, "a"));
        assertEquals(Appended.QUEUED, q.append(0, 2, 2, P0, 0, "b"));
        Request<String> a = q.next(0);
        assertEquals("a", a.payload);
        assertNull(q.next(0), "its head runs: the worker waits");
        assertNull(q.next(1), "nothing in partition 1");
        q.finished(a);
        assertEquals("b", q.next(0).payload);
    }

    @Test
    void aCrossBorderRequestRunsOnlyOnItsExecPartitionOnceItHeadsAllItsQueues() {
        PartitionQueues<String> q = new PartitionQueues<>(2, 8);
        q.append(1, 9, 1, new int[] {1}, 1, "simple in 1");
        q.append(0, 5, 1, P01, 1, "x");
        assertNull(q.next(0), "partition 0 holds x as CROSS-BORDER-SYNC: its worker waits");
        Request<String> simple = q.next(1);
        assertEquals("simple in 1", simple.payload);
        q.append(1, 5, 2, P01, 1, "x");
        assertNull(q.next(0));
        q.finished(simple);
        assertNull(q.next(0), "x heads both queues, but partition 1 runs it");
        Request<String> x = q.next(1);
        assertEquals("x", x.payload);
        assertEquals(1, x.instanceIn(0));
        assertEquals(2, x.instanceIn(1));
        q.finished(x);
        assertTrue(q.isEmpty());
        assertEquals(0, q.deadlocks());
    }

    @Test
    void oppositeOrdersDeadlockOnceAndTheSmallestIdMovesAtEveryArrivalOrder() {
        // X = 1 (run by partition 1) and Y = 2 (run by partition 0), both of {0, 1}: instance 0 orders X then Y,
        // instance 1 orders Y then X. Every arrival order of the four copies (each instance's own order kept).
        int[][] orders = {{0, 0, 1, 1}, {1, 1, 0, 0}, {0, 1, 0, 1}, {1, 0, 1, 0}, {0, 1, 1, 0}, {1, 0, 0, 1}};
        Long digest = null;
        for (int[] order : orders) {
            String context = "arrival order " + java.util.Arrays.toString(order);
            PartitionQueues<String> q = new PartitionQueues<>(2, 8);
            int[] next = new int[2];
            long[][] ids = {{1, 2}, {2, 1}};
            for (int p : order) {
                long id = ids[p][next[p]++];
                assertEquals(Appended.QUEUED, q.append(p, id, next[p], P01, id == 1 ? 1 : 0, "r" + id));
            }
            assertEquals(1, q.deadlocks(), context);
            assertArrayEquals(new long[] {1, 2}, q.ids(0), context);
            assertArrayEquals(new long[] {1, 2}, q.ids(1), "X moved to the head of partition 1; " + context);
            digest = digest == null ? q.resolutionDigest() : digest;
            assertEquals(digest, q.resolutionDigest(), context);
            assertNull(q.next(0), "X is CROSS-BORDER-SYNC in partition 0; " + context);
            Request<String> x = q.next(1);
            assertEquals(1, x.id, context);
            assertNull(q.next(0), context);
            q.finished(x);
            assertNull(q.next(1), "Y runs on partition 0; " + context);
            Request<String> y = q.next(0);
            assertEquals(2, y.id, context);
            q.finished(y);
            assertTrue(q.isEmpty());
            assertEquals(1, q.deadlocks(), context);
            assertEquals(digest, q.resolutionDigest(), context);
        }
        assertNotEquals(0L, digest.longValue());
        assertNotEquals(new PartitionQueues<String>(2, 8).resolutionDigest(), digest.longValue(),
                "a resolution changes the digest");
    }

    @Test
    void idsAreComparedUnsigned() {
        // Y = 2 is smaller than X = 0xffff_ffff_ffff_ffff, read unsigned as the proposers' ids are.
        PartitionQueues<String> q = new PartitionQueues<>(2, 8);
        q.append(0, -1L, 1, P01, 0, "X");
        q.append(0, 2, 2, P01, 0, "Y");
        q.append(1, 2, 1, P01, 0, "Y");
        q.append(1, -1L, 2, P01, 0, "X");
        assertEquals(1, q.deadlocks());
        assertArrayEquals(new long[] {2, -1L}, q.ids(0), "Y moved to the head of partition 0");
        assertEquals("Y", q.next(0).payload);
    }

    @Test
    void deadlocksThroughTheLastOfSixtyFourPartitionsAreFound() {
        // Partition 63 is the top bit of the sets of queues the resolver keeps in a long.
        int[] p063 = {0, 63};
        PartitionQueues<String> q = new PartitionQueues<>(64, 8);
        q.append(0, 1, 1, p063, 63, "X");
        q.append(0, 2, 2, p063, 0, "Y");
        q.append(63, 2, 1, p063, 0, "Y");
        q.append(63, 1, 2, p063, 63, "X");
        assertEquals(1, q.deadlocks(), "X and Y wait for each other across partitions 0 and 63");
        assertArrayEquals(new long[] {1, 2}, q.ids(63));
        Request<String> x = q.next(63);
        assertEquals(1, x.id);
        q.finished(x);
        Request<String> y = q.next(0);
        assertEquals(2, y.id);
        q.finished(y);

        // A cycle through 62, 63 and 0: A = 30 of {62, 63} heads 62, B = 20 of {0, 63} heads 63, C = 10 of {0, 62}
        // heads 0.
        int[] p6263 = {62, 63};
        int[] p062 = {0, 62};
        q.append(62, 30, 1, p6263, 62, "A");
        q.append(62, 10, 2, p062, 0, "C");
        q.append(63, 20, 3, p063, 63, "B");
        q.append(63, 30, 4, p6263, 62, "A");
        q.append(0, 10, 3, p062, 0, "C");
        q.append(0, 20, 4, p063, 63, "B");
        assertEquals(2, q.deadlocks(), "C, the smallest, moved");
        assertArrayEquals(new long[] {10, 30}, q.ids(62));
        Request<String> c = q.next(0);
        assertEquals(10, c.id);
        q.finished(c);
        assertEquals(20, q.next(63).id, "B heads 0 and 63 now");
    }

    @Test
    void aDeadlockOfAllSixtyFourPartitionsIsFound() {
        // Request i (id 100 + i) of {i, i + 1 mod 64}: instance i orders request i, then request i - 1. Every queue
        // is headed by its own request, which waits for the next queue: one cycle through all 64.
        PartitionQueues<String> q = new PartitionQueues<>(64, 8);
        for (int i = 0; i < 64; i++) {
            int next = (i + 1) % 64;
            int prev = (i + 63) % 64;
            int[] mine = {Math.min(i, next), Math.max(i, next)};
            int[] before = {Math.min(prev, i), Math.max(prev, i)};
            q.append(i, 100 + i, 1, mine, i, "r" + i);
            q.append(i, 100 + prev, 2, before, prev, "r" + prev);
        }
        assertEquals(1, q.deadlocks(), "request 0, the smallest, moved to the head of partition 1");
        assertArrayEquals(new long[] {100, 101}, q.ids(1));
        Request<String> first = q.next(0);
        assertEquals(100, first.id);
        q.finished(first);
        for (int i = 63; i > 0; i--) {
            Request<String> r = q.next(i);
            assertEquals(100 + i, r.id, "then request 63 heads partitions 63 and 0, then 62, and so on");
            q.finished(r);
        }
        assertTrue(q.isEmpty());
        assertEquals(1, q.deadlocks());
    }

    @Test
    void twoDisjointDeadlocksResolveApartWhicheverFormsFirst() {
        int[] p23 = {2, 3};
        long digest = 0;
        for (boolean firstPairFirst : new boolean[] {true, false}) {
            PartitionQueues<String> q = new PartitionQueues<>(4, 8);
            Runnable first = () -> {
                q.append(0, 1, 1, P01, 0, "X");
                q.append(1, 2, 1, P01, 1, "Y");
                q.append(0, 2, 2, P01, 1, "Y");
                q.append(1, 1, 2, P01, 0, "X");
            };
            Runnable second = () -> {
                q.append(3, 3, 1, p23, 3, "U");
                q.append(2, 4, 1, p23, 2, "V");
                q.append(3, 4, 2, p23, 2, "V");
                q.append(2, 3, 2, p23, 3, "U");
            };
            if (firstPairFirst) {
                first.run();
                assertEquals(1, q.deadlocks());
                second.run();
            } else {
                second.run();
                assertEquals(1, q.deadlocks());
                first.run();
            }
            assertEquals(2, q.deadlocks());
            assertArrayEquals(new long[] {1, 2}, q.ids(1), "X moved ahead of Y");
            assertArrayEquals(new long[] {3, 4}, q.ids(2), "U moved ahead of V");
            if (digest == 0) {
                digest = q.resolutionDigest();
            }
            assertEquals(digest, q.resolutionDigest(), "the same resolutions, formed in another order");
            Request<String> x = q.next(0);
            Request<String> u = q.next(3);
            assertEquals(1, x.id);
            assertEquals(3, u.id, "both run at once, on their exec partitions");
            q.finished(u);
            q.finished(x);
            Request<String> y = q.next(1);
            Request<String> v = q.next(2);
            assertEquals(2, y.id);
            assertEquals(4, v.id);
            q.finished(y);
            q.finished(v);
            assertTrue(q.isEmpty());
        }
    }

    @Test
    void aQueueThatWaitsForADeadlockIsNotPartOfItEvenWithASmallerHead() {
        // X = 5 and Y = 6 of {0, 1} deadlock; Z = 1 of {1, 2} heads partition 2 and waits for partition 1, but
        // nothing waits for partition 2: Z is not chosen, though its id is the smallest.
        PartitionQueues<String> q = new PartitionQueues<>(3, 8);
        int[] p12 = {1, 2};
        q.append(2, 1, 1, p12, 2, "Z");
        q.append(0, 5, 1, P01, 0, "X");
        q.append(0, 6, 2, P01, 0, "Y");
        q.append(1, 6, 1, P01, 0, "Y");
        q.append(1, 5, 2, P01, 0, "X");
        q.append(1, 1, 3, p12, 2, "Z");
        assertEquals(1, q.deadlocks());
        assertArrayEquals(new long[] {5, 6, 1}, q.ids(1), "X moved; Z stays behind");
        assertArrayEquals(new long[] {1}, q.ids(2));
        Request<String> x = q.next(0);
        assertEquals(5, x.id);
        assertNull(q.next(2));
        q.finished(x);
        Request<String> y = q.next(0);
        assertEquals(6, y.id);
        q.finished(y);
        assertEquals(1, q.next(2).id);
        assertEquals(1, q.deadlocks());
    }

    @Test
    void aQueueThatAlsoWaitsForAnEmptyQueueIsInNoDeadlockYet() {
        // X = 30 of {0, 1, 2}, Y = 20 of {0, 1}, Z = 10 of {0, 2}. Instance 0 orders X, Y, Z; instance 1 Y, X;
        // instance 2 Z, X. Before partition 2 receives anything, X (heading 0) and Y (heading 1) wait for each other,
        // but X also waits for the empty partition 2: had Y been moved then, Y would run first; once Z heads partition
        // 2 the deadlock is {0, 1, 2} and Z, the smallest, moves, at every replica.
        int[] all = {0, 1, 2};
        int[] p02 = {0, 2};
        long digest = 0;
        for (boolean partition2Last : new boolean[] {true, false}) {
            PartitionQueues<String> q = new PartitionQueues<>(3, 8);
            Runnable first = () -> {
                q.append(0, 30, 1, all, 0, "X");
                q.append(0, 20, 2, P01, 1, "Y");
                q.append(0, 10, 3, p02, 2, "Z");
                q.append(1, 20, 1, P01, 1, "Y");
                q.append(1, 30, 2, all, 0, "X");
            };
            Runnable last = () -> {
                q.append(2, 10, 1, p02, 2, "Z");
                q.append(2, 30, 2, all, 0, "X");
            };
            if (partition2Last) {
                first.run();
                assertEquals(0, q.deadlocks(), "X waits for the empty partition 2");
                assertNull(q.next(0));
                assertNull(q.next(1));
                last.run();
            } else {
                last.run();
                first.run();
            }
            assertEquals(1, q.deadlocks());
            assertArrayEquals(new long[] {10, 30, 20}, q.ids(0), "Z moved to the head of partition 0");
            assertArrayEquals(new long[] {10, 30}, q.ids(2));
            assertNull(q.next(0));
            Request<String> z = q.next(2);
            assertEquals(10, z.id);
            q.finished(z);
            assertEquals(2, q.deadlocks(), "then X and Y, alone, wait for each other: Y moves");
            assertArrayEquals(new long[] {20, 30}, q.ids(0));
            assertArrayEquals(new long[] {20, 30}, q.ids(1));
            if (digest == 0) {
                digest = q.resolutionDigest();
            }
            assertEquals(digest, q.resolutionDigest());
            Request<String> y = q.next(1);
            assertEquals(20, y.id);
            q.finished(y);
            assertEquals(30, q.next(0).id);
        }
    }

    @Test
    void aThreePartitionCycleResolvesByItsSmallestHeadOnceItHasArrivedEverywhere() {
        PartitionQueues<String> q = new PartitionQueues<>(3, 8);
        // A = 30 {0,1}, B = 20 {1,2}, C = 10 {0,2} head partitions 0, 1 and 2, each waiting for the next: a deadlock.
        q.append(0, 30, 1, new int[] {0, 1}, 0, "A");
        q.append(1, 20, 1, new int[] {1, 2}, 1, "B");
        assertEquals(0, q.deadlocks(), "B waits for an empty queue");
        q.append(2, 10, 1, new int[] {0, 2}, 2, "C");
        assertEquals(0, q.deadlocks(), "decided, but C, the smallest head, has not arrived in partition 0");
        assertTrue(q.hasRoom(0));
        q.append(1, 30, 2, new int[] {0, 1}, 0, "A");
        assertEquals(0, q.deadlocks());
        q.append(0, 10, 2, new int[] {0, 2}, 2, "C");
        assertEquals(1, q.deadlocks());
        assertArrayEquals(new long[] {10, 30}, q.ids(0), "C moved to the head of partition 0");
        assertNull(q.next(0), "partition 0 holds C as SYNC");
        Request<String> c = q.next(2);
        assertEquals(10, c.id);
        q.finished(c);
        assertNull(q.next(0), "A waits for partition 1, headed by B");
        q.append(2, 20, 2, new int[] {1, 2}, 1, "B");
        Request<String> b = q.next(1);
        assertEquals(20, b.id);
        q.finished(b);
        assertEquals(30, q.next(0).id, "then A, in the order the instances gave");
        assertEquals(1, q.deadlocks());
    }

    @Test
    void resolutionWaitsForTheChosenRequestAndLetsItsQueueGrowPastCapacity() {
        PartitionQueues<String> q = new PartitionQueues<>(2, 2);
        // X = 1, Y = 2 of {0, 1}; queue 1 is filled with Y and simple requests before X arrives there.
        q.append(0, 1, 1, P01, 0, "X");
        q.append(0, 2, 2, P01, 0, "Y");
        q.append(1, 2, 1, P01, 0, "Y");
        q.append(1, 7, 2, new int[] {1}, 1, "s");
        assertEquals(0, q.deadlocks(), "X, the chosen request, has not arrived in partition 1");
        assertTrue(q.hasRoom(1), "the deadlock awaits X behind a full queue");
        assertFalse(q.hasRoom(0), "partition 0 is full and awaited by nobody");
        q.append(1, 1, 3, P01, 0, "X");
        assertEquals(1, q.deadlocks());
        assertArrayEquals(new long[] {1, 2, 7}, q.ids(1));
        assertFalse(q.hasRoom(1), "resolved: partition 1 is over its capacity and waits to drain");
        Request<String> x = q.next(0);
        q.finished(x);
        assertFalse(q.hasRoom(1), "two requests, the capacity");
        assertEquals(2, q.next(0).id);
    }

    @Test
    void aDeadlockThatNeedsMoreThanFourTimesTheCapacityStopsNamingThePartition() {
        PartitionQueues<String> q = new PartitionQueues<>(2, 1);
        q.append(0, 1, 1, P01, 0, "X");
        q.append(0, 2, 2, P01, 0, "Y");
        q.append(1, 2, 1, P01, 0, "Y");
        for (int i = 0; i < 3; i++) {
            assertTrue(q.hasRoom(1));
            q.append(1, 100 + i, 2 + i, new int[] {1}, 1, "s");
        }
        assertTrue(q.hasRoom(1), "a queue at the bound says it has room: append says why not");
        assertFalse(q.hasRoom(0));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> q.append(1, 200, 9, new int[] {1}, 1, "s"));
        assertEquals("partition 1 holds 4 requests, 4 at most, and a deadlock still waits for a request behind them",
                e.getMessage());
    }

    @Test
    void waitingForAnEmptyQueueOrARunningHeadIsNoDeadlock() {
        PartitionQueues<String> q = new PartitionQueues<>(2, 8);
        q.append(0, 1, 1, P01, 0, "X");
        assertEquals(0, q.deadlocks(), "X waits for an empty queue");
        q.append(1, 5, 1, new int[] {1}, 1, "s");
        Request<String> s = q.next(1);
        q.append(1, 1, 2, P01, 0, "X");
        assertEquals(0, q.deadlocks(), "X waits for a head that runs");
        q.finished(s);
        assertEquals(1, q.next(0).id);
        assertEquals(0, q.deadlocks());
    }

    @Test
    void waitingForAQueueHeadedByASimpleRequestIsNoDeadlock() {
        PartitionQueues<String> q = new PartitionQueues<>(2, 8);
        q.append(1, 5, 1, new int[] {1}, 1, "s");
        q.append(1, 1, 2, P01, 0, "X");
        q.append(0, 1, 1, P01, 0, "X");
        assertEquals(0, q.deadlocks(), "X waits for s, which can run");
        assertNull(q.next(0));
        Request<String> s = q.next(1);
        assertEquals(5, s.id);
        q.finished(s);
        assertEquals(1, q.next(0).id);
        assertEquals(0, q.deadlocks());
        assertEquals(new PartitionQueues<String>(2, 8).resolutionDigest(), q.resolutionDigest(), "nothing was moved");
    }

    @Test
    void misroutedAndRepeatedRequestsAreRefused() {
        PartitionQueues<String> q = new PartitionQueues<>(2, 8);
        assertEquals(Appended.NOT_OF_PARTITION, q.append(1, 1, 1, P0, 0, "of 0 only"));
        assertEquals(Appended.QUEUED, q.append(0, 2, 1, P01, 0, "x"));
        assertEquals(Appended.REPEATED, q.append(0, 2, 2, P01, 0, "x again"));
        assertEquals(Appended.QUEUED, q.append(1, 2, 1, P01, 0, "x"));
        Request<String> x = q.next(0);
        q.finished(x);
        assertEquals(Appended.REPEATED, q.append(1, 2, 2, P01, 0, "x once more, after it ran"));
        assertTrue(q.isEmpty());
    }
}
