package io.psmr.bench.cos;

import io.psmr.scheduler.Command;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The coarse-grained COS of Escobar, Alchieri, Dotti, Pedone et al., "Boosting concurrency in
 * Parallel State Machine Replication" (Middleware '19): the whole graph is one critical section
 * under one lock, and two semaphores count the free space and the ready commands, so that
 * {@link #insert} and {@link #get} block outside the lock. Written from the paper's description.
 *
 * <p>Nodes are kept in insertion order. {@link #insert} compares the new command with every node
 * and adds an edge from each conflicting one; {@link #get} takes a ready-permit, then scans for the
 * oldest ready node; {@link #remove} unlinks the node and releases its dependents. Every operation
 * holds the lock for a pass over at most {@code maxSize} nodes: the contention that the paper shows
 * limits this variant.
 *
 * <p>Threads: see {@link CosGraph}; every method may be called from any thread.
 *
 * @param <C> the command type
 */
public final class CoarseLockCos<C extends Command> implements CosGraph<C> {

    /** Permits released to wake every waiter for good (closed and empty, or aborted). */
    private static final int FLOOD = 1 << 29;

    private enum Status { WAITING, READY, EXECUTING, REMOVED }

    private static final class Node<C extends Command> implements Handle<C> {
        final C command;
        final long sequence;
        final CoarseLockCos<C> owner;
        int dependencies;
        List<Node<C>> dependents = new ArrayList<>(2);
        Status status = Status.WAITING;

        Node(C command, long sequence, CoarseLockCos<C> owner) {
            this.command = command;
            this.sequence = sequence;
            this.owner = owner;
        }

        @Override
        public C command() {
            return command;
        }

        @Override
        public long sequence() {
            return sequence;
        }
    }

    private final int maxSize;
    private final Semaphore space;
    private final Semaphore ready = new Semaphore(0);
    private final ReentrantLock lock = new ReentrantLock();
    /** Live nodes in insertion order; guarded by {@link #lock}. */
    private final List<Node<C>> nodes = new ArrayList<>();
    private long inserted;
    private boolean closed;
    private boolean aborted;
    private boolean flooded;

    /**
     * An empty graph of at most {@code maxSize} commands.
     *
     * @throws IllegalArgumentException if {@code maxSize < 1}
     */
    public CoarseLockCos(int maxSize) {
        this.maxSize = CosConflicts.checkMaxSize(maxSize);
        this.space = new Semaphore(maxSize);
    }

    @Override
    public long insert(C command) throws InterruptedException {
        if (command == null) {
            throw new IllegalArgumentException("command is null");
        }
        space.acquire();
        lock.lock();
        try {
            if (closed) {
                space.release();
                throw new IllegalStateException(aborted ? "COS graph aborted" : "COS graph closed");
            }
            Node<C> n = new Node<>(command, ++inserted, this);
            for (int i = 0, size = nodes.size(); i < size; i++) {
                Node<C> o = nodes.get(i);
                if (CosConflicts.conflict(o.command, command)) {
                    n.dependencies++;
                    o.dependents.add(n);
                }
            }
            nodes.add(n);
            if (n.dependencies == 0) {
                n.status = Status.READY;
                ready.release();
            }
            return n.sequence;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Handle<C> get() throws InterruptedException {
        ready.acquire();
        lock.lock();
        try {
            if (aborted) {
                return null;
            }
            // Each ordinary permit stands for exactly one READY node, so this finds one unless the
            // permit came from the flood of a closed, empty graph.
            for (int i = 0, size = nodes.size(); i < size; i++) {
                Node<C> n = nodes.get(i);
                if (n.status == Status.READY) {
                    n.status = Status.EXECUTING;
                    return n;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void remove(Handle<C> handle) {
        if (!(handle instanceof Node<C> n) || n.owner != this) {
            throw new IllegalArgumentException("not a handle of this graph: " + handle);
        }
        lock.lock();
        try {
            if (n.status != Status.EXECUTING) {
                throw new IllegalStateException("command " + n.sequence + " is " + n.status + ", not executing");
            }
            n.status = Status.REMOVED;
            nodes.remove(n);
            for (Node<C> d : n.dependents) {
                if (--d.dependencies == 0 && d.status == Status.WAITING) {
                    d.status = Status.READY;
                    ready.release();
                }
            }
            n.dependents = List.of();
            if (closed && nodes.isEmpty()) {
                flood();
            }
        } finally {
            lock.unlock();
        }
        space.release();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (nodes.isEmpty()) {
                flood();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void abort() {
        lock.lock();
        try {
            closed = true;
            aborted = true;
            flood();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every blocked and future get and insert for good; under the lock. */
    private void flood() {
        if (!flooded) {
            flooded = true;
            ready.release(FLOOD);
            space.release(FLOOD);
        }
    }

    @Override
    public int size() {
        lock.lock();
        try {
            return nodes.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int maxSize() {
        return maxSize;
    }
}
