package io.psmr.scheduler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What both graphs share: the monitor, the ordered {@code nodeList}, the queue of free batches,
 * the bound, closing, and statistics. Subclasses decide only which pending nodes a new node gets
 * edges from ({@link #link}) and what to forget when a node leaves ({@link #unlink}).
 *
 * <p>The free batches wait in a priority queue ordered by delivery, so {@code take} finds the
 * oldest free batch (Algorithm 1, lines 33-35) without scanning the whole list.
 */
abstract class AbstractDependencyGraph<C extends Command> implements DependencyGraph<C> {

    private final ConflictDetection detection;
    private final int capacity;
    /**
     * How many times a worker that finds no free batch checks again, pausing between checks, before
     * it parks; 0 parks at once. A park and its unpark cost tens of microseconds on a virtual machine,
     * as long as a batch of cheap commands runs; a short spin bridges the moment between one batch's
     * removal and the next insert without a wake-up.
     */
    private final int spins;
    /** free.size(), readable without the lock by spinning workers. */
    private volatile int freeCount;
    /**
     * A delivery thread blocked on a full graph is woken once the graph is down to this size: a
     * quarter of the capacity (at least one slot) below full. Waking it on every removal cost the
     * removing worker a thread wake-up per batch (tens of microseconds on a virtual machine, a
     * third of a worker's time with batches of 200 cheap commands); woken later, it inserts a run
     * of batches in one go while the workers still have the rest to execute. Which batches run,
     * and in which order, does not change.
     */
    private final int resumeSize;
    /** When a batch that becomes free wakes a parked worker. */
    private final WakePolicy wake;
    /** Taken batches not yet removed: the busy workers. Under the lock. */
    private int busy;
    /**
     * Inserts since a batch was last taken or a worker woken, during which free batches waited;
     * under the lock. Bounds how long {@link WakePolicy#WHEN_OUTNUMBERED} lets a free batch wait.
     */
    private int waitedInserts;

    final ReentrantLock lock = new ReentrantLock();
    private final Condition freeAvailable = lock.newCondition();
    private final Condition spaceAvailable = lock.newCondition();
    private final Condition emptied = lock.newCondition();

    /** nodeList of §VI-A, in delivery order. */
    GraphNode<C> head;
    private GraphNode<C> tail;
    private final PriorityQueue<GraphNode<C>> free =
            new PriorityQueue<>((a, b) -> Long.compare(a.instance, b.instance));
    private int size;
    /**
     * Free places the delivery thread has seen under the lock, less those it filled since: only it inserts, so
     * room it has seen stays, and while some is left an insert skips the lock that waits for room. Delivery
     * thread only, like the two fields below, which it writes under the lock but also reads without it.
     */
    private int knownRoom;
    private boolean hasInserted;
    private long lastInstance;
    private boolean closed;
    private boolean aborted;

    // Statistics, guarded by lock.
    long conflictChecks;
    long conflictsFound;
    private long edgesAdded;
    private long inserted;
    private long removedCount;
    private int maxSize;
    private final long createdNanos = System.nanoTime();
    private long lastChangeNanos = createdNanos;
    private double sizeTimeIntegral;

    AbstractDependencyGraph(ConflictDetection detection, int capacity, int spins, WakePolicy wake) {
        this.wake = Objects.requireNonNull(wake, "wake policy");
        this.detection = Objects.requireNonNull(detection, "detection");
        if (capacity < 1) {
            throw new IllegalArgumentException("graph capacity must be at least 1, got " + capacity);
        }
        if (spins < 0) {
            throw new IllegalArgumentException("worker spins must be at least 0, got " + spins);
        }
        this.capacity = capacity;
        this.spins = spins;
        this.resumeSize = capacity - Math.max(1, capacity / 4);
    }

    /**
     * Work of an insert done without the lock, on the delivery thread only, with state only the
     * delivery thread touches. It runs once the insert can no longer fail except by the graph
     * closing: the batch is in order and there is room for it (only the delivery thread inserts,
     * so room found stays). Nothing by default.
     */
    void prepare(GraphNode<C> node) {
    }

    /** Whether {@link #prepare} does anything; if not, an insert takes the lock once. */
    boolean preparesOutsideLock() {
        return false;
    }

    /** Under the lock: adds edges from the pending nodes that {@code node} must follow, through {@link #addEdge}. */
    abstract void link(GraphNode<C> node);

    /** Forgets {@code node}, which is leaving the graph after execution. */
    abstract void unlink(GraphNode<C> node);

    /** Drops all indexing state; called by abort. */
    abstract void clearIndex();

    /** Records the edge {@code from → to}; the caller guarantees it is new. */
    final void addEdge(GraphNode<C> from, GraphNode<C> to) {
        from.deps.add(to);
        to.pendingDeps++;
        edgesAdded++;
    }

    @Override
    public final void insert(Batch<C> batch) throws InterruptedException {
        if (batch == null) {
            throw new IllegalArgumentException("batch is null");
        }
        detection.requireMatches(batch.summary());
        GraphNode<C> node = new GraphNode<>(batch, this);
        boolean outside = preparesOutsideLock();
        if (outside) {
            if (knownRoom > 0) {
                requireInOrder(batch);
            } else {
                lock.lockInterruptibly();
                try {
                    awaitRoom(batch);
                } finally {
                    lock.unlock();
                }
            }
            prepare(node);
            // Not interruptible: prepare may have changed the index, so the batch must now enter.
            lock.lock();
        } else {
            lock.lockInterruptibly();
        }
        try {
            if (!outside) {
                awaitRoom(batch);
            } else if (closed) {
                throw new IllegalStateException("dependency graph is closed");
            }
            link(node);
            appendToList(node);
            hasInserted = true;
            lastInstance = batch.instance();
            inserted++;
            resize(+1);
            knownRoom = capacity - size;
            boolean isFree = node.pendingDeps == 0;
            if (isFree) {
                addFree(node);
            }
            if (!free.isEmpty()) {
                waitedInserts++;
                wakeFor(isFree ? 1 : 0);
            }
        } finally {
            lock.unlock();
        }
    }

    /** On the delivery thread: refuses a batch that does not follow the last inserted one. */
    private void requireInOrder(Batch<C> batch) {
        if (hasInserted && batch.instance() <= lastInstance) {
            throw new IllegalArgumentException("batch instance " + batch.instance()
                    + " is out of order: the last delivered instance is " + lastInstance);
        }
    }

    /** Under the lock: refuses an out-of-order batch, then waits for room; throws if the graph is closed. */
    private void awaitRoom(Batch<C> batch) throws InterruptedException {
        requireInOrder(batch);
        while (size >= capacity && !closed) {
            spaceAvailable.await();
        }
        if (closed) {
            throw new IllegalStateException("dependency graph is closed");
        }
    }

    @Override
    public final PendingBatch<C> take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (free.isEmpty()) {
                if (aborted || (closed && size == 0)) {
                    return null;
                }
                awaitFree();
            }
            return pollFree();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final PendingBatch<C> tryTake() {
        lock.lock();
        try {
            return free.isEmpty() ? null : pollFree();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: takes the oldest free node. */
    private GraphNode<C> pollFree() {
        GraphNode<C> n = free.poll();
        freeCount = free.size();
        n.taken = true;
        busy++;
        waitedInserts = 0;
        return n;
    }

    /**
     * Under the lock, after {@code added} batches became free (0 when an insert added none): wakes
     * parked workers as the {@link WakePolicy} says. {@link WakePolicy#WHEN_OUTNUMBERED} wakes one
     * per free batch beyond the busy workers (every one if none is busy), and one anyway once free
     * batches have waited through {@link WakePolicy#STALE_INSERTS} inserts. Signalling a condition
     * nobody waits on costs no system call, so the count of parked workers is not needed.
     */
    private void wakeFor(int added) {
        int n;
        if (wake == WakePolicy.EAGER) {
            n = added;
        } else {
            int excess = busy == 0 ? free.size() : free.size() - busy;
            n = Math.min(added, excess);
            if (n <= 0 && !free.isEmpty() && waitedInserts >= WakePolicy.STALE_INSERTS) {
                n = 1;
            }
        }
        for (int i = 0; i < n; i++) {
            freeAvailable.signal();
        }
        if (n > 0) {
            waitedInserts = 0;
        }
    }

    /** Under the lock: makes {@code n} free. */
    private void addFree(GraphNode<C> n) {
        free.add(n);
        freeCount = free.size();
    }

    /**
     * Under the lock, with no free batch: waits for one (or for the end). Spins first, without the
     * lock, up to {@link #spins} checks; the caller re-checks whatever this returns.
     */
    private void awaitFree() throws InterruptedException {
        if (spins > 0) {
            lock.unlock();
            try {
                for (int i = 0; i < spins && freeCount == 0; i++) {
                    Thread.onSpinWait();
                }
            } finally {
                lock.lock();
            }
            if (!free.isEmpty() || aborted || (closed && size == 0)) {
                return;
            }
        }
        freeAvailable.await();
    }

    @Override
    public final void remove(PendingBatch<C> taken) {
        GraphNode<C> node = ownNode(taken);
        lock.lock();
        try {
            int freed = removeLocked(node);
            // The caller may not come back to take (it is no longer busy), so every free batch,
            // not only the ones this removal freed, counts toward a wake-up.
            wakeFor(wake == WakePolicy.EAGER ? freed : free.size());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final PendingBatch<C> removeAndTake(PendingBatch<C> done) throws InterruptedException {
        GraphNode<C> node = ownNode(done);
        // Not interruptible: the batch ran, so its removal must happen whatever comes next.
        lock.lock();
        try {
            int freed = removeLocked(node);
            if (!free.isEmpty()) {
                // This worker takes one of the freed batches itself; the policy decides about the others.
                GraphNode<C> next = pollFree();
                wakeFor(freed - 1);
                return next;
            }
            while (free.isEmpty()) {
                if (aborted || (closed && size == 0)) {
                    return null;
                }
                awaitFree();
            }
            return pollFree();
        } finally {
            lock.unlock();
        }
    }

    private GraphNode<C> ownNode(PendingBatch<C> taken) {
        if (!(taken instanceof GraphNode<C> node) || node.owner != this) {
            throw new IllegalArgumentException("batch " + describe(taken) + " was not taken from this graph");
        }
        return node;
    }

    /**
     * Removes a taken node under the lock and signals room and emptiness; the caller signals the
     * freed batches, so that a worker that takes one of them itself wakes nobody for it.
     *
     * @return how many batches the removal freed
     */
    private int removeLocked(GraphNode<C> node) {
        if (!node.taken || node.removed) {
            throw new IllegalArgumentException("batch " + node.batch.instance()
                    + (node.removed ? " was removed already" : " was not taken"));
        }
        node.removed = true;
        busy--;
        unlinkFromList(node);
        int freed = 0;
        if (!aborted) {
            unlink(node);
            for (GraphNode<C> d : node.deps) {
                if (--d.pendingDeps == 0) {
                    addFree(d);
                    freed++;
                }
            }
        }
        node.deps.clear();
        removedCount++;
        resize(-1);
        if (size <= resumeSize) {
            spaceAvailable.signal();
        }
        if (size == 0) {
            emptied.signalAll();
            if (closed) {
                freeAvailable.signalAll();
            }
        }
        return freed;
    }

    private static String describe(PendingBatch<?> p) {
        return p == null ? "null" : String.valueOf(p.batch() == null ? "?" : p.batch().instance());
    }

    @Override
    public final int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final int capacity() {
        return capacity;
    }

    @Override
    public final ConflictDetection detection() {
        return detection;
    }

    @Override
    public final void close() {
        lock.lock();
        try {
            closed = true;
            spaceAvailable.signalAll();
            freeAvailable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final List<Batch<C>> abort() {
        lock.lock();
        try {
            closed = true;
            aborted = true;
            List<Batch<C>> dropped = new ArrayList<>();
            for (GraphNode<C> n = head; n != null; ) {
                GraphNode<C> next = n.next;
                if (!n.taken) {
                    dropped.add(n.batch);
                    n.removed = true;
                    unlinkFromList(n);
                    resize(-1);
                }
                n = next;
            }
            free.clear();
            freeCount = 0;
            clearIndex();
            spaceAvailable.signalAll();
            freeAvailable.signalAll();
            if (size == 0) {
                emptied.signalAll();
            }
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final boolean awaitEmpty(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (size > 0) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = emptied.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final GraphStatistics statistics() {
        lock.lock();
        try {
            long now = System.nanoTime();
            double integral = sizeTimeIntegral + (double) size * (now - lastChangeNanos);
            long elapsed = now - createdNanos;
            double mean = elapsed > 0 ? integral / elapsed : size;
            return new GraphStatistics(inserted, removedCount, conflictChecks, conflictsFound, edgesAdded,
                    mean, maxSize, size, free.size());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final Map<Long, List<Long>> edges() {
        lock.lock();
        try {
            Map<Long, List<Long>> result = new LinkedHashMap<>();
            for (GraphNode<C> n = head; n != null; n = n.next) {
                result.put(n.batch.instance(), new ArrayList<>());
            }
            for (GraphNode<C> n = head; n != null; n = n.next) {
                for (GraphNode<C> d : n.deps) {
                    result.get(d.batch.instance()).add(n.batch.instance());
                }
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    private void appendToList(GraphNode<C> node) {
        node.prev = tail;
        if (tail == null) {
            head = node;
        } else {
            tail.next = node;
        }
        tail = node;
    }

    private void unlinkFromList(GraphNode<C> node) {
        if (node.prev == null) {
            head = node.next;
        } else {
            node.prev.next = node.next;
        }
        if (node.next == null) {
            tail = node.prev;
        } else {
            node.next.prev = node.prev;
        }
        node.prev = null;
        node.next = null;
    }

    private void resize(int delta) {
        long now = System.nanoTime();
        sizeTimeIntegral += (double) size * (now - lastChangeNanos);
        lastChangeNanos = now;
        size += delta;
        if (size > maxSize) {
            maxSize = size;
        }
    }
}
