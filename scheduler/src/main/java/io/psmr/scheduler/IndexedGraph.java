package io.psmr.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * A dependency graph with the same partial order as {@link MonitorGraph} whose insert costs
 * O(bits or keys of the new batch), whatever the number of pending batches.
 *
 * <p>For every bit (bitmap modes) or exact key (key modes) it keeps the last pending batch that
 * writes it and the pending batches that read it since. A new batch gets edges only from those:
 * a writer from the last writer and the readers since; a reader from the last writer. In the
 * modes without read/write distinction every element is a write, so each element chains its
 * batches in delivery order. Any other conflicting pending batch precedes one of these through
 * a chain of edges, so the transitive closure, and with it the set of free batches, is the same
 * as {@link MonitorGraph}'s. See docs/architecture.md for the argument.
 *
 * <p>Threads and bounds: see {@link DependencyGraph}. The bit index is an array of {@code m}
 * references to last writers (plus, in {@link ConflictMode#RW_BITMAP}, {@code m} reader lists that
 * exist only while a bit has pending readers), allocated on the first insert; the key index holds
 * only the keys of pending batches.
 */
public final class IndexedGraph<C extends Command> extends AbstractDependencyGraph<C> {

    /** Pending accesses to one bit or key. */
    private static final class Slot<C extends Command> {
        GraphNode<C> lastWriter;
        final ArrayList<GraphNode<C>> readers = new ArrayList<>(0);

        boolean isEmpty() {
            return lastWriter == null && readers.isEmpty();
        }
    }

    /** Per bit: the last pending writer. Allocated on the first insert of a bitmap mode. */
    private GraphNode<C>[] bitWriter;
    /** Per bit: pending readers since the last writer, or null; only in {@link ConflictMode#RW_BITMAP}. */
    private ArrayList<GraphNode<C>>[] bitReaders;
    private final Map<Key, Slot<C>> keySlots = new HashMap<>();
    private long stamp;

    /** Reused visitor that links the node being inserted; touched only under the lock. */
    private final Linker linker = new Linker();
    /** Reused visitor that unlinks the node being removed; touched only under the lock. */
    private final Unlinker unlinker = new Unlinker();

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     */
    public IndexedGraph(ConflictDetection detection, int capacity) {
        super(detection, capacity);
    }

    @Override
    void link(GraphNode<C> node) {
        if (bitWriter == null && detection().mode().usesBitmaps()) {
            allocateBitIndex();
        }
        linker.node = node;
        linker.stamp = ++stamp;
        node.batch.summary().forEachElement(linker);
        linker.node = null;
    }

    @Override
    void unlink(GraphNode<C> node) {
        unlinker.node = node;
        node.batch.summary().forEachElement(unlinker);
        unlinker.node = null;
    }

    @Override
    void clearIndex() {
        bitWriter = null;
        bitReaders = null;
        keySlots.clear();
    }

    @SuppressWarnings("unchecked")
    private void allocateBitIndex() {
        int m = detection().bitmapBits();
        bitWriter = (GraphNode<C>[]) new GraphNode<?>[m];
        if (detection().mode() == ConflictMode.RW_BITMAP) {
            bitReaders = (ArrayList<GraphNode<C>>[]) new ArrayList<?>[m];
        }
    }

    private final class Linker implements ConflictSummary.ElementVisitor {
        GraphNode<C> node;
        long stamp;

        @Override
        public void onBit(int bit, boolean write) {
            conflictChecks++;
            GraphNode<C> writer = bitWriter[bit];
            edgeFrom(writer);
            ArrayList<GraphNode<C>> readers = bitReaders == null ? null : bitReaders[bit];
            if (write) {
                if (readers != null) {
                    edgesFrom(readers);
                    bitReaders[bit] = null;
                }
                bitWriter[bit] = node;
            } else if (writer != node) {
                if (readers == null) {
                    readers = new ArrayList<>(2);
                    bitReaders[bit] = readers;
                }
                readers.add(node);
            }
        }

        @Override
        public void onKey(Key key, boolean write) {
            conflictChecks++;
            Slot<C> slot = keySlots.computeIfAbsent(key, k -> new Slot<>());
            edgeFrom(slot.lastWriter);
            if (write) {
                edgesFrom(slot.readers);
                slot.readers.clear();
                slot.lastWriter = node;
            } else if (slot.lastWriter != node) {
                slot.readers.add(node);
            }
        }

        private void edgesFrom(ArrayList<GraphNode<C>> preds) {
            for (int i = 0, n = preds.size(); i < n; i++) {
                edgeFrom(preds.get(i));
            }
        }

        private void edgeFrom(GraphNode<C> pred) {
            if (pred == null || pred == node) {
                return;
            }
            conflictsFound++;
            if (pred.mark != stamp) {
                pred.mark = stamp;
                addEdge(pred, node);
            }
        }
    }

    private final class Unlinker implements ConflictSummary.ElementVisitor {
        GraphNode<C> node;

        @Override
        public void onBit(int bit, boolean write) {
            if (bitWriter[bit] == node) {
                bitWriter[bit] = null;
            } else if (bitReaders != null && bitReaders[bit] != null) {
                ArrayList<GraphNode<C>> readers = bitReaders[bit];
                readers.remove(node);
                if (readers.isEmpty()) {
                    bitReaders[bit] = null;
                }
            }
        }

        @Override
        public void onKey(Key key, boolean write) {
            Slot<C> s = keySlots.get(key);
            if (s != null) {
                forget(s);
                if (s.isEmpty()) {
                    keySlots.remove(key);
                }
            }
        }

        private void forget(Slot<C> s) {
            if (s.lastWriter == node) {
                s.lastWriter = null;
            } else {
                s.readers.remove(node);
            }
        }
    }
}
