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
 * <p>Threads and bounds: see {@link DependencyGraph}. The bit index is an open-addressed hash
 * table from bit to its last pending writer (and, in {@link ConflictMode#RW_BITMAP}, its pending
 * readers), holding only bits of pending batches: at most twice as many slots as the largest number
 * of such bits seen, whatever {@code m}. An array of {@code m} references would cost no hashing,
 * but at the default {@code m} it spans 4 MiB and every bit of a new batch missed the cache: a
 * quarter of the cost of executing a batch of 200 cheap commands. The key index likewise holds only
 * the keys of pending batches.
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

    /** Per pending bit: its last writer and readers. Made on the first insert of a bitmap mode. */
    private BitTable<C> bits;
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
        if (bits == null && detection().mode().usesBitmaps()) {
            bits = new BitTable<>(detection().mode() == ConflictMode.RW_BITMAP);
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
        bits = null;
        keySlots.clear();
    }

    private final class Linker implements ConflictSummary.ElementVisitor {
        GraphNode<C> node;
        long stamp;

        @Override
        public void onBit(int bit, boolean write) {
            conflictChecks++;
            BitTable<C> t = bits;
            int i = t.findOrAdd(bit);
            GraphNode<C> writer = t.writers[i];
            edgeFrom(writer);
            ArrayList<GraphNode<C>> readers = t.readers == null ? null : t.readers[i];
            if (write) {
                if (readers != null) {
                    edgesFrom(readers);
                    t.readers[i] = null;
                }
                t.writers[i] = node;
            } else if (writer != node) {
                if (readers == null) {
                    readers = new ArrayList<>(2);
                    t.readers[i] = readers;
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
            BitTable<C> t = bits;
            int i = t.find(bit);
            if (i < 0) {
                return;
            }
            if (t.writers[i] == node) {
                t.writers[i] = null;
            } else if (t.readers != null && t.readers[i] != null) {
                ArrayList<GraphNode<C>> readers = t.readers[i];
                readers.remove(node);
                if (readers.isEmpty()) {
                    t.readers[i] = null;
                }
            }
            if (t.writers[i] == null && (t.readers == null || t.readers[i] == null)) {
                t.removeAt(i);
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

    /**
     * Open-addressed (linear probing) table from bit to its last pending writer and, with read
     * bitmaps, its pending readers. Entries leave when both are gone, by backward-shift deletion,
     * so there are no tombstones. Keys are stored as {@code bit + 1}; 0 marks an empty slot.
     * Touched only under the graph's lock.
     */
    private static final class BitTable<C extends Command> {
        private static final int INITIAL = 1024;

        int[] keys;
        GraphNode<C>[] writers;
        ArrayList<GraphNode<C>>[] readers;
        private final boolean withReaders;
        private int size;
        private int shift;

        BitTable(boolean withReaders) {
            this.withReaders = withReaders;
            allocate(INITIAL);
        }

        @SuppressWarnings("unchecked")
        private void allocate(int length) {
            keys = new int[length];
            writers = (GraphNode<C>[]) new GraphNode<?>[length];
            readers = withReaders ? (ArrayList<GraphNode<C>>[]) new ArrayList<?>[length] : null;
            shift = 32 - Integer.numberOfTrailingZeros(length);
        }

        private int home(int key) {
            return (key * 0x9E3779B9) >>> shift;
        }

        /** The slot of {@code bit}, or -1. */
        int find(int bit) {
            int key = bit + 1;
            int mask = keys.length - 1;
            for (int i = home(key); ; i = (i + 1) & mask) {
                int k = keys[i];
                if (k == key) {
                    return i;
                }
                if (k == 0) {
                    return -1;
                }
            }
        }

        /** The slot of {@code bit}, made empty (no writer, no readers) if it was absent. */
        int findOrAdd(int bit) {
            int key = bit + 1;
            int mask = keys.length - 1;
            int i = home(key);
            for (; ; i = (i + 1) & mask) {
                int k = keys[i];
                if (k == key) {
                    return i;
                }
                if (k == 0) {
                    break;
                }
            }
            if (2 * (size + 1) > keys.length) {
                grow();
                return findOrAdd(bit);
            }
            keys[i] = key;
            size++;
            return i;
        }

        private void grow() {
            int[] oldKeys = keys;
            GraphNode<C>[] oldWriters = writers;
            ArrayList<GraphNode<C>>[] oldReaders = readers;
            allocate(oldKeys.length * 2);
            int mask = keys.length - 1;
            for (int j = 0; j < oldKeys.length; j++) {
                int key = oldKeys[j];
                if (key != 0) {
                    int i = home(key);
                    while (keys[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    keys[i] = key;
                    writers[i] = oldWriters[j];
                    if (withReaders) {
                        readers[i] = oldReaders[j];
                    }
                }
            }
        }

        /** Empties slot {@code i}, shifting back later entries of its probe run. */
        void removeAt(int i) {
            int mask = keys.length - 1;
            int j = i;
            while (true) {
                j = (j + 1) & mask;
                int key = keys[j];
                if (key == 0) {
                    break;
                }
                int h = home(key);
                // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
                boolean stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
                if (!stays) {
                    keys[i] = key;
                    writers[i] = writers[j];
                    if (withReaders) {
                        readers[i] = readers[j];
                    }
                    i = j;
                }
            }
            keys[i] = 0;
            writers[i] = null;
            if (withReaders) {
                readers[i] = null;
            }
            size--;
        }
    }
}
