package io.psmr.kvstore.mlbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
        // X = 1 and Y = 2, both of {0, 1}: instance 0 orders X then Y, instance 1 orders Y then X.
        int[][] orders = {{0, 0, 1, 1}, {1, 1, 0, 0}, {0, 1, 0, 1}, {1, 0, 1, 0}, {0, 1, 1, 0}, {1, 0, 0, 1}};
        for (int[] order : orders) {
            PartitionQueues<String> q = new PartitionQueues<>(2, 8);
            int[] next = new int[2];
            long[][] ids = {{1, 2}, {2, 1}};
            for (int p : order) {
                long id = ids[p][next[p]++];
                q.append(p, id, next[p], P01, 0, "r" + id);
            }
            assertEquals(1, q.deadlocks(), "one deadlock, arrival order " + java.util.Arrays.toString(order));
            assertArrayEquals(new long[] {1, 2}, q.ids(0));
            assertArrayEquals(new long[] {1, 2}, q.ids(1), "X moved to the head of partition 1");
            Request<String> x = q.next(0);
            assertEquals(1, x.id);
            q.finished(x);
            Request<String> y = q.next(0);
            assertEquals(2, y.id);
            q.finished(y);
            assertTrue(q.isEmpty());
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
        assertTrue(!q.hasRoom(0), "partition 0 is full and awaited by nobody");
        q.append(1, 1, 3, P01, 0, "X");
        assertEquals(1, q.deadlocks());
        assertArrayEquals(new long[] {1, 2, 7}, q.ids(1));
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
