package io.psmr.kvstore.mlbft;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * MLBFT's execution stage as data (Abid's thesis, §3.2.5 to §3.2.8, Algorithms 3.2 to 3.5): one ordered queue per
 * partition, the rule that says which request a partition's worker may run, and the deterministic detection and
 * resolution of deadlocks. Pure: no threads, no clocks; {@link MlbftExecutionStage} runs it under a monitor.
 *
 * <h2>Requests</h2>
 * Each partition's ordering instance appends the requests it ordered, in its order ({@link #append}). A request of one
 * partition is <i>simple</i> (EXECUTE): its partition's worker runs it when it heads that queue. A request of several
 * partitions is <i>cross-border</i>: every one of its instances orders it, so it enters each of their queues, and it
 * runs only when it heads all of them, on the worker of its <i>exec partition</i> (CROSS-BORDER-EXEC there,
 * CROSS-BORDER-SYNC in the others, whose workers wait). Requests are matched across queues by their id.
 *
 * <h2>Deadlocks, decided from the queues alone</h2>
 * The instances order independently, so two cross-border requests can head their queues in opposite orders and wait
 * for each other forever. A queue is <i>blocked</i> when its head is cross-border and does not head all of its
 * queues; it waits for every other queue of that head whose head is another request. A <i>deadlock</i> is a set S of
 * blocked queues that is closed and strongly connected: every queue of S waits only for queues of S (none for an empty
 * queue, none for a queue that can run), and each reaches every other. Such a set never changes by itself: nothing in
 * it can run, and requests arriving later only join the tails. So whether S is a deadlock, and which request resolves
 * it, depend only on the requests the instances ordered, never on when they arrived or how the workers were
 * scheduled: every replica finds the same deadlocks and resolves them alike (a set that is not yet closed at one
 * replica is a deadlock there later, or never, as at the others).
 *
 * <p>Resolution (§3.2.8.1, Algorithm 3.5): among the heads of S, the request with the smallest id is moved to the head of
 * each of its queues (in those it is CROSS-BORDER-SYNC, or EXEC behind another head); it then heads all of them and
 * runs. If it has not yet arrived in one of its queues, resolution waits for it: S cannot change meanwhile. Each
 * resolution counts one deadlock.
 *
 * <h2>Bounds</h2>
 * A queue takes at most {@code capacity} requests ({@link #hasRoom}). A queue of a deadlock that still waits for the
 * chosen request takes up to {@code 4 × capacity}, since the request must arrive behind what fills it; if the
 * deadlock needs more, {@link #append} throws, identically at every replica (positions in a queue depend only on the
 * order), and the replica stops.
 *
 * <p>Not thread-safe: one monitor guards it.
 *
 * @param <T> what a request carries
 */
final class PartitionQueues<T> {

    /** A request in the queues: its id, partitions (ascending), exec partition and payload. */
    static final class Request<T> {
        final long id;
        final int[] partitions;
        final int execPartition;
        final T payload;
        /** Where each of its partitions' instances ordered it (that instance's sequence number), 0 before it arrives. */
        final long[] instances;
        int arrived;
        boolean running;

        Request(long id, int[] partitions, int execPartition, T payload) {
            this.id = id;
            this.partitions = partitions;
            this.execPartition = execPartition;
            this.payload = payload;
            this.instances = new long[partitions.length];
        }

        boolean crossBorder() {
            return partitions.length > 1;
        }

        /** Where partition {@code p}'s instance ordered this request (0 if it has not). */
        long instanceIn(int p) {
            int i = indexOf(p);
            return i < 0 ? 0 : instances[i];
        }

        int indexOf(int p) {
            for (int i = 0; i < partitions.length; i++) {
                if (partitions[i] == p) {
                    return i;
                }
            }
            return -1;
        }

        @Override
        public String toString() {
            return "request " + Long.toUnsignedString(id, 16) + " of partitions " + java.util.Arrays.toString(partitions);
        }
    }

    /**
     * What identifies a request across the instances: its id and a digest of its bytes, so that two different requests
     * under one id (only a faulty client sends them) are never taken for copies of one another.
     */
    record Key(long id, byte[] digest) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.id == id && java.util.Arrays.equals(k.digest, digest);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id) * 31 + java.util.Arrays.hashCode(digest);
        }

        @Override
        public String toString() {
            return Long.toUnsignedString(id, 16);
        }
    }

    /** What {@link #append} did with an ordered request. */
    enum Appended {
        /** In the queue. */
        QUEUED,
        /** Refused: the request is not of the partition whose instance ordered it (a misrouted request). */
        NOT_OF_PARTITION,
        /**
         * Refused: this partition's instance ordered the same request among its last {@link #REPEAT_WINDOW} (a
         * proposer that offered it again through another replica; every replica refuses the same copies).
         */
        REPEATED
    }

    /** How many of a partition's latest requests a repeat is recognised among. */
    static final int REPEAT_WINDOW = 1 << 14;

    private final int partitions;
    private final int capacity;
    /** Per partition, its latest requests' keys (at most {@link #REPEAT_WINDOW}), oldest first, and as a set. */
    private final ArrayDeque<Key>[] recent;
    private final java.util.HashSet<Key>[] recentSet;
    private final ArrayDeque<Request<T>>[] queues;
    /** Cross-border requests that have not yet arrived in all of their queues, by id. */
    private final Map<Key, Request<T>> arriving = new HashMap<>();
    /** Queues of a deadlock whose chosen request has not arrived in them yet: they may take more than capacity. */
    private long awaited;
    private long deadlocks;
    /** Per partition, a hash chain of the requests resolutions moved to its head, in the order they were moved. */
    private final long[] moves;

    @SuppressWarnings("unchecked")
    PartitionQueues(int partitions, int capacity) {
        if (partitions < 1 || partitions > 64) {
            throw new IllegalArgumentException("partitions must be from 1 to 64, got " + partitions);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("queue capacity must be at least 1, got " + capacity);
        }
        this.partitions = partitions;
        this.capacity = capacity;
        this.queues = new ArrayDeque[partitions];
        this.moves = new long[partitions];
        this.recent = new ArrayDeque[partitions];
        this.recentSet = new java.util.HashSet[partitions];
        for (int p = 0; p < partitions; p++) {
            queues[p] = new ArrayDeque<>();
            recent[p] = new ArrayDeque<>();
            recentSet[p] = new java.util.HashSet<>();
        }
    }

    /** The most requests queue {@code p} may take beyond {@code capacity} while a deadlock waits on it. */
    int hardCapacity() {
        return 4 * capacity;
    }

    /** Whether partition {@code p}'s queue can take another request now. */
    boolean hasRoom(int p) {
        // A queue a deadlock waits on always takes the next request: past hardCapacity, append says why it cannot.
        return queues[p].size() < capacity || (awaited >>> p & 1) != 0;
    }

    /**
     * Partition {@code p}'s instance ordered {@code id} at its sequence number {@code instance}: appends it to queue
     * {@code p} (call {@link #hasRoom} first), then resolves any deadlock that completes.
     *
     * @param partitions    the request's partitions, ascending and distinct (the prediction)
     * @param execPartition the one of them that runs it
     * @throws IllegalStateException if a deadlock needs a request more than {@link #hardCapacity()} behind a head
     */
    Appended append(int p, long id, long instance, int[] partitions, int execPartition, T payload) {
        return append(p, new Key(id, new byte[0]), instance, partitions, execPartition, payload);
    }

    /** As {@link #append(int, long, long, int[], int, Object)}, for the request {@code key}. */
    Appended append(int p, Key key, long instance, int[] partitions, int execPartition, T payload) {
        Objects.requireNonNull(partitions, "partitions");
        if (indexIn(partitions, p) < 0) {
            return Appended.NOT_OF_PARTITION; // the prediction comes from the request's bytes: the same for every copy
        }
        if (recentSet[p].contains(key)) {
            return Appended.REPEATED;
        }
        if (queues[p].size() >= hardCapacity()) {
            throw new IllegalStateException("partition " + p + " holds " + queues[p].size() + " requests, "
                    + hardCapacity() + " at most, and a deadlock still waits for a request behind them");
        }
        recent[p].addLast(key);
        recentSet[p].add(key);
        if (recent[p].size() > REPEAT_WINDOW) {
            recentSet[p].remove(recent[p].removeFirst());
        }
        Request<T> r = arriving.get(key);
        if (r == null || r.instances[r.indexOf(p)] != 0) {
            // A first copy; or a copy repeated beyond the window while the first still waits for a partner, which
            // only a faulty client sends (docs/mlbft.md, left out): it is taken as a request of its own.
            r = new Request<>(key.id(), partitions.clone(), execPartition, payload);
            if (r.crossBorder()) {
                arriving.put(key, r);
            }
        }
        r.instances[r.indexOf(p)] = instance;
        r.arrived++;
        if (r.arrived == r.partitions.length) {
            arriving.remove(key);
        }
        queues[p].addLast(r);
        resolveDeadlocks();
        return Appended.QUEUED;
    }

    /**
     * The request partition {@code p}'s worker runs next, marked running, or null if it must wait: its queue is
     * empty, its head runs, or its head is cross-border and either of another exec partition (SYNC) or not yet at
     * the head of all its queues.
     */
    Request<T> next(int p) {
        Request<T> head = queues[p].peekFirst();
        if (head == null || head.running) {
            return null;
        }
        if (head.crossBorder() && (head.execPartition != p || !headsAll(head))) {
            return null;
        }
        head.running = true;
        return head;
    }

    /** A worker ran {@code r}, which {@link #next} returned: removes it from the heads of its queues. */
    void finished(Request<T> r) {
        if (!r.running) {
            throw new IllegalStateException(r + " is not running");
        }
        for (int p : r.partitions) {
            if (queues[p].peekFirst() != r) {
                throw new IllegalStateException(r + " does not head partition " + p);
            }
            queues[p].removeFirst();
        }
        resolveDeadlocks();
    }

    /** Deadlocks resolved so far. */
    long deadlocks() {
        return deadlocks;
    }

    /**
     * A digest of every resolution so far: per partition, which requests were moved to its head, in order. Each
     * partition's part depends only on what the instances ordered, so replicas that ran the same requests report the
     * same digest; one that resolved a deadlock otherwise reports another.
     */
    long resolutionDigest() {
        long d = 0;
        for (int p = 0; p < partitions; p++) {
            d += mix(moves[p] + p);
        }
        return d;
    }

    private static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    /** Whether every queue is empty (nothing ordered is left to run). */
    boolean isEmpty() {
        for (ArrayDeque<Request<T>> q : queues) {
            if (!q.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Requests in partition {@code p}'s queue. */
    int size(int p) {
        return queues[p].size();
    }

    /** The ids in partition {@code p}'s queue, head first (for tests and diagnostics). */
    long[] ids(int p) {
        return queues[p].stream().mapToLong(r -> r.id).toArray();
    }

    // ---------------------------------------------------------------- deadlocks

    private boolean headsAll(Request<T> r) {
        for (int q : r.partitions) {
            if (queues[q].peekFirst() != r) {
                return false;
            }
        }
        return true;
    }

    /**
     * The queues partition {@code p} waits for, as a bit set; 0 if it is not blocked on present heads (empty, simple or
     * running head, a head that heads all its queues, or one that waits for an empty queue). A blocked queue waits for
     * at least one other, so 0 is no set; and partition 63 is the sign bit, so a set is tested against 0, never as
     * a signed number.
     */
    private long waitsFor(int p) {
        Request<T> head = queues[p].peekFirst();
        if (head == null || head.running || !head.crossBorder() || headsAll(head)) {
            return 0;
        }
        long edges = 0;
        for (int q : head.partitions) {
            Request<T> other = queues[q].peekFirst();
            if (other == null) {
                return 0; // waits for an empty queue
            }
            if (other != head) {
                edges |= 1L << q;
            }
        }
        return edges;
    }

    /** Resolves every deadlock whose chosen request has arrived everywhere; records the queues the others await. */
    private void resolveDeadlocks() {
        awaited = 0;
        boolean moved = true;
        while (moved) {
            moved = false;
            long[] edges = new long[partitions];
            for (int p = 0; p < partitions; p++) {
                edges[p] = waitsFor(p);
            }
            long done = 0;
            for (int p = 0; p < partitions; p++) {
                if ((done >>> p & 1) != 0 || edges[p] == 0) {
                    continue;
                }
                long set = deadlockOf(p, edges);
                if (set == 0) {
                    continue;
                }
                done |= set;
                Request<T> victim = null;
                for (int q = 0; q < partitions; q++) {
                    if ((set >>> q & 1) != 0) {
                        Request<T> h = queues[q].peekFirst();
                        if (victim == null || Long.compareUnsigned(h.id, victim.id) < 0) {
                            victim = h;
                        }
                    }
                }
                if (victim.arrived < victim.partitions.length) {
                    for (int i = 0; i < victim.partitions.length; i++) {
                        if (victim.instances[i] == 0) {
                            awaited |= 1L << victim.partitions[i];
                        }
                    }
                    continue;
                }
                for (int q : victim.partitions) {
                    if (queues[q].peekFirst() != victim) {
                        queues[q].removeFirstOccurrence(victim);
                        queues[q].addFirst(victim);
                    }
                    moves[q] = mix(moves[q] * 31 + victim.id);
                }
                deadlocks++;
                moved = true;
                break; // the heads changed: look again
            }
        }
    }

    /**
     * The deadlock partition {@code p} belongs to, as a bit set, or 0 if none: the queues {@code p} reaches, if all of
     * them are blocked on present heads only and each reaches {@code p} back.
     */
    private long deadlockOf(int p, long[] edges) {
        long reach = reach(p, edges);
        if (reach == 0 || (reach >>> p & 1) == 0) {
            return 0; // waits for an empty queue or a queue that can run, or is not on a cycle
        }
        for (int q = 0; q < partitions; q++) {
            if ((reach >>> q & 1) != 0 && reach(q, edges) != reach) {
                return 0; // not strongly connected: the deadlock, if any, is further on
            }
        }
        return reach;
    }

    /** The queues reachable from {@code p} by one or more waits, or 0 if one of them is not blocked on present heads. */
    private long reach(int p, long[] edges) {
        long seen = 0;
        long frontier = edges[p];
        if (frontier == 0) {
            return 0;
        }
        while (frontier != 0) {
            int q = Long.numberOfTrailingZeros(frontier);
            frontier &= frontier - 1;
            if ((seen >>> q & 1) != 0) {
                continue;
            }
            seen |= 1L << q;
            if (edges[q] == 0) {
                return 0;
            }
            frontier |= edges[q] & ~seen;
        }
        return seen;
    }

    private static int indexIn(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }

    /** Every request still queued (for close: their payloads are answered or dropped). */
    Iterator<Request<T>> queued(int p) {
        return queues[p].iterator();
    }
}
