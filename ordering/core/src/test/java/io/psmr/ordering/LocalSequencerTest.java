package io.psmr.ordering;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LocalSequencerTest {

    /** Records what one learner delivers. */
    static class Recorder implements DeliveryListener {
        final List<Long> instances = Collections.synchronizedList(new ArrayList<>());
        final List<byte[]> values = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch closed = new CountDownLatch(1);
        final AtomicReference<Throwable> closedWith = new AtomicReference<>();

        @Override
        public void deliver(long instance, byte[] value) throws Exception {
            instances.add(instance);
            values.add(value);
        }

        @Override
        public void closed(Throwable failure) {
            closedWith.set(failure);
            closed.countDown();
        }
    }

    private static byte[] value(int proposer, int seq, int padding) {
        return ByteBuffer.allocate(8 + padding).putInt(proposer).putInt(seq).array();
    }

    @Test
    void manyProposersAndLearnersSeeOneGapFreeTotalOrder() throws Exception {
        long seed = System.nanoTime();
        System.out.println("manyProposersAndLearnersSeeOneGapFreeTotalOrder seed=" + seed);
        Random random = new Random(seed);
        int proposers = 6;
        int perProposer = 400;
        int total = proposers * perProposer;
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(1 + random.nextInt(16)).build()) {
            List<Recorder> recorders = new ArrayList<>();
            List<Subscription> subs = new ArrayList<>();
            for (int l = 0; l < 4; l++) {
                Recorder r = new Recorder();
                recorders.add(r);
                subs.add(seq.subscribe(AtomicBroadcast.FIRST_INSTANCE, r));
            }
            seq.start();
            Map<Integer, long[]> instancesByProposer = new HashMap<>();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
            for (int p = 0; p < proposers; p++) {
                int id = p;
                long[] got = new long[perProposer];
                instancesByProposer.put(id, got);
                int padding = random.nextInt(32);
                Thread t = new Thread(() -> {
                    try {
                        for (int i = 0; i < perProposer; i++) {
                            got[i] = seq.propose(value(id, i, padding)).get();
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(errors.isEmpty(), () -> "seed " + seed + ": " + errors);
            assertEquals(total, seq.lastInstance());
            for (Subscription s : subs) {
                assertTrue(s.awaitDelivered(total, 30, TimeUnit.SECONDS), "seed " + seed);
            }
            List<byte[]> reference = recorders.get(0).values;
            for (Recorder r : recorders) {
                assertEquals(total, r.instances.size(), "seed " + seed);
                for (int i = 0; i < total; i++) {
                    assertEquals(i + 1L, r.instances.get(i), "gap or reorder, seed " + seed);
                    assertArrayEquals(reference.get(i), r.values.get(i), "learners disagree, seed " + seed);
                }
            }
            // Each value exactly once, at the instance its future reported, in its proposer's order.
            int[] nextSeq = new int[proposers];
            for (int i = 0; i < total; i++) {
                ByteBuffer b = ByteBuffer.wrap(reference.get(i));
                int p = b.getInt();
                int s = b.getInt();
                assertEquals(nextSeq[p]++, s, "proposer order broken, seed " + seed);
                assertEquals(i + 1L, instancesByProposer.get(p)[s], "future instance differs, seed " + seed);
            }
        }
    }

    @Test
    void slowLearnerHoldsBackProposersWithinTheWindowButNotOtherLearners() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch slowStarted = new CountDownLatch(1);
        DeliveryListener slow = (instance, value) -> {
            slowStarted.countDown();
            release.await();
        };
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(4).proposeTimeout(Duration.ZERO).build()) {
            Subscription slowSub = seq.subscribe(1, slow);
            Recorder fast = new Recorder();
            Subscription fastSub = seq.subscribe(1, fast);
            seq.start();
            for (int i = 0; i < 4; i++) {
                assertEquals(i + 1L, seq.propose(new byte[] {(byte) i}).get());
            }
            assertTrue(fastSub.awaitDelivered(4, 10, TimeUnit.SECONDS), "the fast learner is not stalled");
            assertTrue(slowSub.isActive());
            slowStarted.await();
            CompletableFuture<Long> refused = seq.propose(new byte[] {9});
            ExecutionException e = assertThrows(ExecutionException.class, refused::get);
            assertInstanceOf(OverloadedException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("retained window is 4"), e.getCause().getMessage());
            assertEquals(4, seq.lastInstance(), "a refused value is not ordered");
            release.countDown();
            assertTrue(slowSub.awaitDelivered(4, 10, TimeUnit.SECONDS));
            assertEquals(5L, seq.propose(new byte[] {5}).get());
            assertTrue(fastSub.awaitDelivered(5, 10, TimeUnit.SECONDS));
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L), fast.instances);
        }
    }

    @Test
    void proposeBlocksUntilTheSlowestLearnerMakesRoom() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(2).proposeTimeout(Duration.ofSeconds(30)).build()) {
            Subscription sub = seq.subscribe(1, (i, v) -> release.await());
            seq.start();
            seq.propose(new byte[1]).get();
            seq.propose(new byte[1]).get();
            CompletableFuture<CompletableFuture<Long>> third = CompletableFuture.supplyAsync(() -> seq.propose(new byte[1]));
            // Wait until the proposer is parked on the full window (a condition, not a fixed delay).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (seq.lastInstance() < 3 && !third.isDone() && System.nanoTime() < deadline && !hasParkedProposer()) {
                Thread.onSpinWait();
            }
            assertFalse(third.isDone(), "propose must block while the learner is a window behind");
            release.countDown();
            assertEquals(3L, third.get(10, TimeUnit.SECONDS).get());
            assertTrue(sub.awaitDelivered(3, 10, TimeUnit.SECONDS));
        }
    }

    private static boolean hasParkedProposer() {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getState() == Thread.State.TIMED_WAITING) {
                for (StackTraceElement f : e.getValue()) {
                    if (f.getMethodName().equals("append") && f.getClassName().equals(LocalSequencer.class.getName())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Test
    void subscribingFromADiscardedInstanceFailsClearly() throws Exception {
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(4).build()) {
            seq.start();
            for (int i = 1; i <= 10; i++) {
                seq.propose(new byte[] {(byte) i}).get();
            }
            assertEquals(7, seq.firstRetainedInstance());
            InstanceNotRetainedException e = assertThrows(InstanceNotRetainedException.class,
                    () -> seq.subscribe(6, new Recorder()));
            assertEquals(6, e.requested());
            assertEquals(7, e.firstRetained());
            assertTrue(e.getMessage().contains("oldest retained instance is 7"), e.getMessage());

            Recorder late = new Recorder();
            Subscription sub = seq.subscribe(7, late);
            assertTrue(sub.awaitDelivered(10, 10, TimeUnit.SECONDS));
            assertEquals(List.of(7L, 8L, 9L, 10L), late.instances);
            assertArrayEquals(new byte[] {7}, late.values.get(0));

            Recorder future = new Recorder();
            Subscription next = seq.subscribe(11, future);
            seq.propose(new byte[] {11}).get();
            assertTrue(next.awaitDelivered(11, 10, TimeUnit.SECONDS));
            assertEquals(List.of(11L), future.instances);
        }
    }

    @Test
    void badArgumentsAreRefusedWithClearErrors() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> LocalSequencer.builder().retainedInstances(0));
        assertThrows(IllegalArgumentException.class, () -> LocalSequencer.builder().maxValueBytes(0));
        assertThrows(IllegalArgumentException.class, () -> LocalSequencer.builder().maxLearners(0));
        assertThrows(IllegalArgumentException.class, () -> LocalSequencer.builder().proposeTimeout(Duration.ofSeconds(-1)));
        try (LocalSequencer seq = LocalSequencer.builder().maxValueBytes(8).maxLearners(1).build()) {
            ExecutionException notStarted = assertThrows(ExecutionException.class, () -> seq.propose(new byte[1]).get());
            assertTrue(notStarted.getCause().getMessage().contains("not started"));
            seq.start();
            assertThrows(IllegalArgumentException.class, () -> seq.propose(null));
            IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> seq.propose(new byte[9]));
            assertTrue(big.getMessage().contains("9 bytes exceeds the sequencer's maximum of 8"), big.getMessage());
            assertThrows(IllegalArgumentException.class, () -> seq.subscribe(0, new Recorder()));
            IllegalArgumentException ahead = assertThrows(IllegalArgumentException.class, () -> seq.subscribe(2, new Recorder()));
            assertTrue(ahead.getMessage().contains("next instance to be ordered is 1"), ahead.getMessage());
            assertThrows(NullPointerException.class, () -> seq.subscribe(1, null));
            seq.subscribe(1, new Recorder());
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> seq.subscribe(1, new Recorder()));
            assertTrue(full.getMessage().contains("maximum of 1 learners"));
        }
    }

    @Test
    void theProposedArrayIsCopied() throws Exception {
        try (LocalSequencer seq = LocalSequencer.builder().build()) {
            Recorder r = new Recorder();
            Subscription sub = seq.subscribe(1, r);
            seq.start();
            byte[] mine = {1, 2, 3};
            seq.propose(mine).get();
            mine[0] = 42;
            assertTrue(sub.awaitDelivered(1, 10, TimeUnit.SECONDS));
            assertArrayEquals(new byte[] {1, 2, 3}, r.values.get(0));
        }
    }

    @Test
    void closeRefusesProposalsFailsWaitersAndEndsLearners() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        LocalSequencer seq = LocalSequencer.builder().retainedInstances(1).proposeTimeout(Duration.ofSeconds(60)).build();
        Recorder blocked = new Recorder() {
            @Override
            public void deliver(long instance, byte[] value) throws Exception {
                super.deliver(instance, value);
                never.await(); // interrupted by close
            }
        };
        Subscription sub = seq.subscribe(1, blocked);
        seq.start();
        seq.propose(new byte[1]).get();
        CompletableFuture<CompletableFuture<Long>> waiting = CompletableFuture.supplyAsync(() -> seq.propose(new byte[1]));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!hasParkedProposer() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        seq.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS).get());
        assertInstanceOf(BroadcastClosedException.class, e.getCause());
        assertTrue(blocked.closed.await(10, TimeUnit.SECONDS));
        assertNull(blocked.closedWith.get(), "a close is not a failure");
        assertFalse(sub.isActive());
        assertEquals(1, seq.lastInstance(), "the waiting proposal was not ordered");
        ExecutionException after = assertThrows(ExecutionException.class, () -> seq.propose(new byte[1]).get());
        assertInstanceOf(BroadcastClosedException.class, after.getCause());
        assertThrows(BroadcastClosedException.class, () -> seq.subscribe(1, new Recorder()));
        assertThrows(IllegalStateException.class, seq::start);
        seq.close(); // idempotent
    }

    @Test
    void aListenerMayCloseTheBroadcastFromItsOwnThread() throws Exception {
        LocalSequencer seq = LocalSequencer.builder().build();
        Recorder r = new Recorder() {
            @Override
            public void deliver(long instance, byte[] value) throws Exception {
                super.deliver(instance, value);
                seq.close();
            }
        };
        seq.subscribe(1, r);
        seq.start();
        seq.propose(new byte[1]).get();
        assertTrue(r.closed.await(10, TimeUnit.SECONDS));
        ExecutionException after = assertThrows(ExecutionException.class, () -> seq.propose(new byte[1]).get());
        assertInstanceOf(BroadcastClosedException.class, after.getCause());
    }

    @Test
    void aFailingListenerEndsOnlyItsSubscriptionAndStopsHoldingProposersBack() throws Exception {
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(2).proposeTimeout(Duration.ofSeconds(30)).build()) {
            Recorder failing = new Recorder() {
                @Override
                public void deliver(long instance, byte[] value) throws Exception {
                    if (instance == 2) {
                        throw new IllegalStateException("boom at 2");
                    }
                    super.deliver(instance, value);
                }
            };
            Subscription bad = seq.subscribe(1, failing);
            Recorder good = new Recorder();
            Subscription ok = seq.subscribe(1, good);
            seq.start();
            for (int i = 0; i < 20; i++) {
                seq.propose(new byte[] {(byte) i}).get(30, TimeUnit.SECONDS);
            }
            assertTrue(failing.closed.await(10, TimeUnit.SECONDS));
            assertEquals("boom at 2", failing.closedWith.get().getMessage());
            assertEquals("boom at 2", bad.failure().orElseThrow().getMessage());
            assertFalse(bad.isActive());
            assertFalse(bad.awaitDelivered(3, 1, TimeUnit.SECONDS), "an ended subscription never reaches 3");
            assertEquals(List.of(1L), failing.instances);
            assertTrue(ok.awaitDelivered(20, 10, TimeUnit.SECONDS));
            assertEquals(20, good.instances.size());
        }
    }

    @Test
    void unsubscribingReleasesTheLearnerAndCallsClosed() throws Exception {
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(1).proposeTimeout(Duration.ZERO).build()) {
            Recorder r = new Recorder();
            Subscription sub = seq.subscribe(1, r);
            seq.start();
            seq.propose(new byte[1]).get();
            assertTrue(sub.awaitDelivered(1, 10, TimeUnit.SECONDS));
            sub.close();
            assertTrue(r.closed.await(10, TimeUnit.SECONDS));
            assertFalse(sub.isActive());
            for (int i = 0; i < 5; i++) {
                seq.propose(new byte[1]).get(); // no learner holds the window any more
            }
            assertEquals(1, r.instances.size());
            sub.close(); // idempotent
        }
    }
}
