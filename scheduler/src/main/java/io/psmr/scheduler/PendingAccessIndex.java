package io.psmr.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The index of the indexed graphs: for every bit (bitmap modes) or exact key (key modes) of a
 * pending batch, the last pending batch that writes it and the pending batches that read it since.
 * A new batch must follow only those: a writer the last writer and the readers since; a reader the
 * last writer. In the modes without read/write distinction every element is a write, so each
 * element chains its batches in delivery order. Any other conflicting pending batch precedes one of
 * these through a chain of edges, so the transitive closure is {@link MonitorGraph}'s (the argument
 * is in docs/architecture.md).
 *
 * <p>The bit index is an open-addressed hash table holding only bits of pending batches: at most
 * twice as many slots as the largest number of such bits seen, whatever {@code m}. An array of
 * {@code m} references would cost no hashing, but at the default {@code m} it spans 4 MiB and every
 * bit of a new batch missed the cache. The key index likewise holds only keys of pending batches.
 *
 * <p><b>Threads.</b> Not thread-safe: its owner serialises every call ({@link IndexedGraph} under
 * its lock, {@link SplitIndexedGraph} on the delivery thread alone). Node {@link GraphNode#mark}s
 * are read and written only through this index, so they share its owner.
 */
final class PendingAccessIndex<C extends Command> {

    /** Pending accesses to one key. */
    private static final class Slot<C extends Command> {
        GraphNode<C> lastWriter;
        final ArrayList<GraphNode<C>> readers = new ArrayList<>(0);

        boolean isEmpty() {
            return lastWriter == null && readers.isEmpty();
        }
    }

    private final boolean withReaders;
    /** Per pending bit: its last writer and readers. Made on first use, by bitmap modes only. */
    private BitTable<C> bits;
    private final Map<Key, Slot<C>> keySlots = new HashMap<>();

    private final Collector collector = new Collector();
    private final Forgetter forgetter = new Forgetter();

    /** @param withReaders whether reads are indexed apart from writes ({@link ConflictMode#RW_BITMAP}) */
    PendingAccessIndex(boolean withReaders) {
        this.withReaders = withReaders;
    }

    /**
     * Appends to {@code out} every indexed batch that {@code node} must follow, each once (by
     * {@code stamp}, new for each call), and indexes {@code node}'s own accesses: it becomes the last
     * writer of what it writes and a reader of the rest. One pass over the summary.
     *
     * @return the elements probed (bits or keys of {@code node}'s summary)
     */
    long link(GraphNode<C> node, long stamp, ArrayList<GraphNode<C>> out) {
        collector.node = node;
        collector.stamp = stamp;
        collector.out = out;
        collector.probes = 0;
        node.batch.summary().forEachElement(collector);
        collector.node = null;
        collector.out = null;
        return collector.probes;
    }

    /** Forgets {@code node}'s accesses, wherever it is still the last writer or a reader. */
    void forget(GraphNode<C> node) {
        forgetter.node = node;
        node.batch.summary().forEachElement(forgetter);
        forgetter.node = null;
    }

    /** Forgets everything. */
    void clear() {
        bits = null;
        keySlots.clear();
    }

    private BitTable<C> bits() {
        if (bits == null) {
            bits = new BitTable<>(withReaders);
        }
        return bits;
    }

    private static <C extends Command> void add(GraphNode<C> pred, GraphNode<C> node, long stamp,
                                                ArrayList<GraphNode<C>> out) {
        if (pred != null && pred != node && pred.mark != stamp) {
            pred.mark = stamp;
            out.add(pred);
        }
    }

    private static <C extends Command> void addAll(ArrayList<GraphNode<C>> preds, GraphNode<C> node, long stamp,
                                                   ArrayList<GraphNode<C>> out) {
        for (int i = 0, n = preds.size(); i < n; i++) {
            add(preds.get(i), node, stamp, out);
        }
    }

    private static <C extends Command> void recordBit(BitTable<C> t, int i, boolean write, GraphNode<C> node) {
        if (write) {
            if (t.readers != null) {
                t.readers[i] = null;
            }
            t.writers[i] = node;
        } else if (t.writers[i] != node) {
            ArrayList<GraphNode<C>> readers = t.readers[i];
            if (readers == null) {
                readers = new ArrayList<>(2);
                t.readers[i] = readers;
            }
            readers.add(node);
        }
    }

    private static <C extends Command> void recordKey(Slot<C> slot, boolean write, GraphNode<C> node) {
        if (write) {
            slot.readers.clear();
            slot.lastWriter = node;
        } else if (slot.lastWriter != node) {
            slot.readers.add(node);
        }
    }

    /** Finds a node's predecessors and records its accesses in the same pass. */
    private final class Collector implements ConflictSummary.ElementVisitor {
        GraphNode<C> node;
        long stamp;
        ArrayList<GraphNode<C>> out;
        long probes;

        @Override
        public void onBit(int bit, boolean write) {
            probes++;
            BitTable<C> t = bits();
            int i = t.findOrAdd(bit);
            GraphNode<C> writer = t.writers[i];
            add(writer, node, stamp, out);
            ArrayList<GraphNode<C>> readers = t.readers == null ? null : t.readers[i];
            if (write && readers != null) {
                addAll(readers, node, stamp, out);
            }
            recordBit(t, i, write, node);
        }

        @Override
        public void onKey(Key key, boolean write) {
            probes++;
            Slot<C> slot = keySlots.computeIfAbsent(key, k -> new Slot<>());
            add(slot.lastWriter, node, stamp, out);
            if (write) {
                addAll(slot.readers, node, stamp, out);
            }
            recordKey(slot, write, node);
        }
    }

    private final class Forgetter implements ConflictSummary.ElementVisitor {
        GraphNode<C> node;

        @Override
        public void onBit(int bit, boolean write) {
            BitTable<C> t = bits;
            int i = t == null ? -1 : t.find(bit);
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
            if (s == null) {
                return;
            }
            if (s.lastWriter == node) {
                s.lastWriter = null;
            } else {
                s.readers.remove(node);
            }
            if (s.isEmpty()) {
                keySlots.remove(key);
            }
        }
    }

    /**
     * Open-addressed (linear probing) table from bit to its last pending writer and, with read
     * bitmaps, its pending readers. Entries leave when both are gone, by backward-shift deletion,
     * so there are no tombstones. Keys are stored as {@code bit + 1}; 0 marks an empty slot.
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
