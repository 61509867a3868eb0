package io.psmr.bench.cos;

import io.psmr.scheduler.Command;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lock-free COS of Escobar, Alchieri, Dotti, Pedone et al., "Boosting concurrency in Parallel
 * State Machine Replication" (Middleware '19), written from the paper's description: a linked list
 * of nodes in insertion order, each with an atomic status (waiting, ready, executing, removed).
 *
 * <ul>
 *   <li>{@link #insert} (one thread) walks the list, adds a dependency on every live conflicting node,
 *       appends the new node, and makes it ready if it has no dependency left. On the way it unlinks
 *       the nodes that workers have marked removed: removal is logical first (status), physical later
 *       (by the inserter, the only thread that writes links), so readers never see a broken list.</li>
 *   <li>{@link #get} waits on a semaphore of ready nodes, then scans from the head and claims the first
 *       ready node with a compare-and-set (ready to executing).</li>
 *   <li>{@link #remove} marks the node removed, seals its list of dependents (an atomic stack) and
 *       counts each dependent's dependencies down; the one that reaches zero becomes ready.</li>
 * </ul>
 * A node's dependency count starts at one while it is being inserted, so that it cannot become ready
 * before it is linked; an edge pushed onto a node that was sealed meanwhile is not counted.
 *
 * <p>Bounded: a semaphore of {@code maxSize} permits is taken by {@link #insert} and given back by
 * {@link #remove}; since every insert unlinks all removed nodes, the list holds at most
 * {@code maxSize + 1} nodes.
 *
 * <p>Threads: see {@link CosGraph}. {@link #insert} must not be called by two threads at once;
 * the rest may be called from any thread.
 *
 * @param <C> the command type
 */
public final class LockFreeCos<C extends Command> implements CosGraph<C> {

    private static final int FLOOD = 1 << 29;

    private static final int WAITING = 0;
    private static final int READY = 1;
    private static final int EXECUTING = 2;
    private static final int REMOVED = 3;

    /** One edge, in a node's stack of dependents. */
    private record Edge(Node<?> to, Edge next) {
    }

    /** Marks a removed node's stack of dependents: nothing may be pushed any more. */
    private static final Edge SEALED = new Edge(null, null);

    private static final VarHandle STATUS;
    private static final VarHandle DEPENDENCIES;
    private static final VarHandle DEPENDENTS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATUS = l.findVarHandle(Node.class, "status", int.class);
            DEPENDENCIES = l.findVarHandle(Node.class, "dependencies", int.class);
            DEPENDENTS = l.findVarHandle(Node.class, "dependents", Edge.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final class Node<C extends Command> implements Handle<C> {
        final C command;
        final long sequence;
        final LockFreeCos<C> owner;
        /** Written only by the inserting thread; read by scanners. */
        volatile Node<C> next;
        volatile int status;
        volatile int dependencies;
        volatile Edge dependents;

        Node(C command, long sequence, LockFreeCos<C> owner) {
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
    private final Node<C> head = new Node<>(null, 0, this);
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean flooded = new AtomicBoolean();
    private volatile boolean closed;
    private volatile boolean aborted;
    /** Inserting thread only. */
    private long inserted;

    /**
     * An empty graph of at most {@code maxSize} commands.
     *
     * @throws IllegalArgumentException if {@code maxSize < 1}
     */
    public LockFreeCos(int maxSize) {
        this.maxSize = CosConflicts.checkMaxSize(maxSize);
        this.space = new Semaphore(maxSize);
        head.status = EXECUTING; // the sentinel is never ready, never removed
    }

    @Override
    public long insert(C command) throws InterruptedException {
        if (command == null) {
            throw new IllegalArgumentException("command is null");
        }
        space.acquire();
        // Counted before the closed check: close() either sees this node or we see closed.
        size.incrementAndGet();
        if (closed) {
            space.release();
            if (size.decrementAndGet() == 0) {
                flood();
            }
            throw new IllegalStateException(aborted ? "COS graph aborted" : "COS graph closed");
        }
        Node<C> n = new Node<>(command, ++inserted, this);
        n.dependencies = 1; // the insertion guard, dropped once the node is linked
        Node<C> prev = head;
        Node<C> cur = head.next;
        while (cur != null) {
            Node<C> after = cur.next;
            if (cur.status == REMOVED) {
                prev.next = after; // physical removal; scanners on cur still follow cur.next
                cur = after;
                continue;
            }
            if (CosConflicts.conflict(cur.command, command)) {
                DEPENDENCIES.getAndAdd(n, 1);
                if (!push(cur, n)) {
                    DEPENDENCIES.getAndAdd(n, -1); // cur was removed meanwhile: no edge
                }
            }
            prev = cur;
            cur = after;
        }
        prev.next = n;
        if ((int) DEPENDENCIES.getAndAdd(n, -1) == 1) {
            makeReady(n);
        }
        return n.sequence;
    }

    private static boolean push(Node<?> from, Node<?> to) {
        while (true) {
            Edge top = from.dependents;
            if (top == SEALED) {
                return false;
            }
            if (DEPENDENTS.compareAndSet(from, top, new Edge(to, top))) {
                return true;
            }
        }
    }

    private void makeReady(Node<?> n) {
        n.status = READY;
        ready.release();
    }

    @Override
    public Handle<C> get() throws InterruptedException {
        ready.acquire();
        while (true) {
            if (aborted) {
                return null;
            }
            for (Node<C> n = head.next; n != null; n = n.next) {
                if (n.status == READY && STATUS.compareAndSet(n, READY, EXECUTING)) {
                    return n;
                }
            }
            if (closed && size.get() == 0) {
                return null; // a permit of the final flood
            }
            // An ordinary permit stands for a ready node that this scan missed (it was linked or
            // made ready behind the scan, or the scan was on a node just unlinked): scan again.
            Thread.onSpinWait();
        }
    }

    @Override
    public void remove(Handle<C> handle) {
        if (!(handle instanceof Node<C> n) || n.owner != this || n == head) {
            throw new IllegalArgumentException("not a handle of this graph: " + handle);
        }
        if (!STATUS.compareAndSet(n, EXECUTING, REMOVED)) {
            throw new IllegalStateException("command " + n.sequence + " is not executing");
        }
        Edge e = (Edge) DEPENDENTS.getAndSet(n, SEALED);
        for (; e != null; e = e.next()) {
            Node<?> d = e.to();
            if ((int) DEPENDENCIES.getAndAdd(d, -1) == 1) {
                makeReady(d);
            }
        }
        int left = size.decrementAndGet();
        space.release();
        if (left == 0 && closed) {
            flood();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (size.get() == 0) {
            flood();
        }
    }

    @Override
    public void abort() {
        aborted = true;
        closed = true;
        flood();
    }

    private void flood() {
        if (flooded.compareAndSet(false, true)) {
            ready.release(FLOOD);
            space.release(FLOOD);
        }
    }

    @Override
    public int size() {
        return size.get();
    }

    @Override
    public int maxSize() {
        return maxSize;
    }
}
