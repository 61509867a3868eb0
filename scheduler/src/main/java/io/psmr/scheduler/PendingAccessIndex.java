package io.psmr.scheduler;

import java.util.ArrayList;
import java.util.Arrays;
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
 * <p><b>The bit index</b> is an open-addressed hash table holding only bits of pending batches, one
 * {@code long} per slot: the bit (plus one, so that 0 marks an empty slot) in the high half and its
 * last writer's <em>id</em> in the low half. An id is a small integer the index gives a node while
 * it is indexed ({@link GraphNode#indexId}), and {@link #byId} maps it back. So a probe reads one
 * cache line, where a table of keys beside a table of references read two. A batch's bits are an
 * {@code int[]} read from its bitmap where the summary was made ({@link BitmapSummary#setBits},
 * {@link RwBitmapSummary#accessBits}: on a replica, on the decode path, off the delivery thread), kept on the node
 * ({@link GraphNode#indexBits}) until it is forgotten: link and forget are tight loops over an
 * array, with no call per bit through a visitor. An array of {@code m} entries would need no
 * hashing, but at the default {@code m} it spans megabytes and every bit of a new batch missed the
 * cache. The key index likewise holds only keys of pending batches.
 *
 * <p><b>Bounds.</b> The table has at most {@code max(1024, 2^⌈log2(8(p + b))⌉)} slots, where
 * {@code p} is the largest number of distinct bits that indexed batches have held at once and
 * {@code b} the most bits of one batch (each slot 8 bytes, plus a 4-byte reference to a reader
 * list in {@link ConflictMode#RW_BITMAP}); at 64 pending batches of 200 bits that is 131,072 slots,
 * 1 MiB, and never more than {@code 2^⌈log2(8(m + b))⌉} slots whatever the number pending. The table is
 * kept at most an eighth full because its time is its probe runs: a quarter full cost 1.2-1.4x and half
 * full 1.6x per batch. Ids, {@link #byId} and the kept bit arrays are bounded by the number of nodes indexed at
 * once (the owner forgets every node it removes); ids are reused, lowest-free-last, after a node is
 * forgotten. Nothing depends on timing or threads: the same sequence of calls gives the same
 * predecessors.
 *
 * <p><b>Threads.</b> Not thread-safe: its owner serialises every call ({@link IndexedGraph} under
 * its lock, {@link SplitIndexedGraph} on the delivery thread alone). A node's
 * {@link GraphNode#mark}, {@link GraphNode#indexBits}, {@link GraphNode#indexWrites} and
 * {@link GraphNode#indexId} are read and written only through this index, so they share its owner.
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

    /** Indexed nodes by id; slot 0 is never used (0 means "no writer" in the table). */
    private GraphNode<C>[] byId;
    /** By id: the stamp of the last link that named the node, so that it is named once per link. */
    private long[] marks;
    /** Ids of forgotten nodes, reused before new ones. */
    private int[] freeIds = new int[16];
    private int freeCount;
    private int nextId = 1;

    private final Collector collector = new Collector();
    private final Forgetter forgetter = new Forgetter();

    /** @param withReaders whether reads are indexed apart from writes ({@link ConflictMode#RW_BITMAP}) */
    @SuppressWarnings("unchecked")
    PendingAccessIndex(boolean withReaders) {
        this.withReaders = withReaders;
        this.byId = (GraphNode<C>[]) new GraphNode<?>[16];
        this.marks = new long[16];
    }

    /**
     * Appends to {@code out} every indexed batch that {@code node} must follow, each once (by
     * {@code stamp}, which must be greater than every earlier call's), and indexes {@code node}'s
     * own accesses: it becomes the last writer of what it writes and a reader of the rest. One pass
     * over the summary.
     *
     * @return the elements probed (bits or keys of {@code node}'s summary)
     */
    long link(GraphNode<C> node, long stamp, ArrayList<GraphNode<C>> out) {
        ConflictSummary summary = node.batch.summary();
        if (summary instanceof BitmapSummary b) {
            int[] elements = b.setBits(); // read only here and in forget
            return linkBits(node, elements, elements.length, stamp, out);
        }
        if (summary instanceof RwBitmapSummary rw) {
            return linkBits(node, rw.accessBits(), rw.writtenBits(), stamp, out); // read only here and in forget
        }
        collector.node = node;
        collector.stamp = stamp;
        collector.out = out;
        collector.probes = 0;
        summary.forEachElement(collector);
        collector.node = null;
        collector.out = null;
        return collector.probes;
    }

    /** Forgets {@code node}'s accesses, wherever it is still the last writer or a reader. Idempotent. */
    void forget(GraphNode<C> node) {
        if (node.indexBits != null) {
            forgetBits(node);
            return;
        }
        if (node.batch.summary().bitmapBits() != 0) {
            return; // a bitmap node already forgotten, or indexed before a clear
        }
        forgetter.node = node;
        node.batch.summary().forEachElement(forgetter);
        forgetter.node = null;
    }

    /** Forgets everything. */
    @SuppressWarnings("unchecked")
    void clear() {
        bits = null;
        keySlots.clear();
        byId = (GraphNode<C>[]) new GraphNode<?>[16];
        marks = new long[16];
        freeCount = 0;
        nextId = 1;
    }

    /** Number of distinct bits indexed; for tests. */
    int bitCount() {
        return bits == null ? 0 : bits.size;
    }

    /** Number of table slots; for tests of the bound. */
    int tableSlots() {
        return bits == null ? 0 : bits.table.length;
    }

    /** Highest id ever given; for tests of the bound. */
    int highestId() {
        return nextId - 1;
    }

    private BitTable<C> bits() {
        if (bits == null) {
            bits = new BitTable<>(withReaders);
        }
        return bits;
    }

    private long linkBits(GraphNode<C> node, int[] elements, int writes, long stamp, ArrayList<GraphNode<C>> out) {
        int id = allocateId(node);
        node.indexBits = elements;
        node.indexWrites = writes;
        marks[id] = stamp; // never names itself
        BitTable<C> t = bits();
        // Room for every bit up front: the loop below then never moves the table.
        t.reserve(elements.length);
        long[] table = t.table;
        ArrayList<GraphNode<C>>[] readers = t.readers;
        GraphNode<C>[] nodes = byId;
        long[] mk = marks;
        for (int k = 0; k < elements.length; k++) {
            int key = elements[k] + 1;
            int i = t.findOrAdd(key);
            int writer = (int) table[i];
            if (writer != 0 && mk[writer] != stamp) {
                mk[writer] = stamp;
                out.add(nodes[writer]);
            }
            if (readers == null) {
                table[i] = ((long) key << 32) | id;
            } else if (k < writes) {
                ArrayList<GraphNode<C>> rs = readers[i];
                if (rs != null) {
                    for (int r = 0, n = rs.size(); r < n; r++) {
                        GraphNode<C> reader = rs.get(r);
                        if (mk[reader.indexId] != stamp) {
                            mk[reader.indexId] = stamp;
                            out.add(reader);
                        }
                    }
                    // The new writer follows them; later batches need only follow it.
                    readers[i] = null;
                }
                table[i] = ((long) key << 32) | id;
            } else {
                ArrayList<GraphNode<C>> rs = readers[i];
                if (rs == null) {
                    rs = new ArrayList<>(2);
                    readers[i] = rs;
                }
                rs.add(node);
            }
        }
        return elements.length;
    }

    private void forgetBits(GraphNode<C> node) {
        int id = node.indexId;
        int[] elements = node.indexBits;
        int writes = node.indexWrites;
        node.indexBits = null;
        node.indexId = 0;
        BitTable<C> t = bits;
        if (t == null || id >= byId.length || byId[id] != node) {
            return; // indexed before a clear
        }
        long[] table = t.table;
        ArrayList<GraphNode<C>>[] readers = t.readers;
        for (int k = 0; k < elements.length; k++) {
            int key = elements[k] + 1;
            int i = t.find(key);
            if (i < 0) {
                continue;
            }
            long e = table[i];
            if ((int) e == id) {
                e = (long) key << 32;
                table[i] = e;
            } else if (readers != null && k >= writes) {
                ArrayList<GraphNode<C>> rs = readers[i];
                if (rs != null) {
                    rs.remove(node);
                    if (rs.isEmpty()) {
                        readers[i] = null;
                    }
                }
            }
            if ((int) e == 0 && (readers == null || readers[i] == null)) {
                t.removeAt(i);
            }
        }
        byId[id] = null;
        if (freeCount == freeIds.length) {
            freeIds = Arrays.copyOf(freeIds, freeIds.length * 2);
        }
        freeIds[freeCount++] = id;
    }

    private int allocateId(GraphNode<C> node) {
        int id = freeCount > 0 ? freeIds[--freeCount] : nextId++;
        if (id >= byId.length) {
            byId = Arrays.copyOf(byId, byId.length * 2);
            marks = Arrays.copyOf(marks, marks.length * 2);
        }
        byId[id] = node;
        node.indexId = id;
        return id;
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

    private static <C extends Command> void recordKey(Slot<C> slot, boolean write, GraphNode<C> node) {
        if (write) {
            slot.readers.clear();
            slot.lastWriter = node;
        } else if (slot.lastWriter != node) {
            slot.readers.add(node);
        }
    }

    /** Key modes: finds a node's predecessors and records its accesses in the same pass. */
    private final class Collector implements ConflictSummary.ElementVisitor {
        GraphNode<C> node;
        long stamp;
        ArrayList<GraphNode<C>> out;
        long probes;

        @Override
        public void onBit(int bit, boolean write) {
            throw new IllegalStateException("bitmap summaries are indexed through their bit arrays");
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

    /** Key modes: forgets a node's accesses. */
    private final class Forgetter implements ConflictSummary.ElementVisitor {
        GraphNode<C> node;

        @Override
        public void onBit(int bit, boolean write) {
            throw new IllegalStateException("bitmap summaries are forgotten through their bit arrays");
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
     * Open-addressed (linear probing) table from bit to its last pending writer's id and, with read
     * bitmaps, its pending readers. Slot {@code i} is {@code table[i] = (bit + 1) << 32 | writerId}
     * ({@code 0}: empty; writer id 0: no writer). Entries leave when both writer and readers are
     * gone, by backward-shift deletion, so there are no tombstones. At most an eighth full.
     */
    private static final class BitTable<C extends Command> {
        private static final int INITIAL = 1024;

        long[] table;
        ArrayList<GraphNode<C>>[] readers;
        private final boolean withReaders;
        int size;
        private int shift;

        BitTable(boolean withReaders) {
            this.withReaders = withReaders;
            allocate(INITIAL);
        }

        @SuppressWarnings("unchecked")
        private void allocate(int length) {
            table = new long[length];
            readers = withReaders ? (ArrayList<GraphNode<C>>[]) new ArrayList<?>[length] : null;
            shift = 32 - Integer.numberOfTrailingZeros(length);
        }

        /** Fibonacci hashing: the top bits of key × 2^32/φ. */
        int home(int key) {
            return (key * 0x9E3779B9) >>> shift;
        }

        /** Grows until {@code more} new entries keep the table at most an eighth full. */
        void reserve(int more) {
            while (8L * (size + more) > table.length) {
                grow();
            }
        }

        /** The slot of key {@code key} (a bit plus one), or -1. */
        int find(int key) {
            long[] t = table;
            int mask = t.length - 1;
            for (int i = home(key); ; i = (i + 1) & mask) {
                int k = (int) (t[i] >>> 32);
                if (k == key) {
                    return i;
                }
                if (k == 0) {
                    return -1;
                }
            }
        }

        /**
         * The slot of key {@code key} (a bit plus one), made empty (no writer, no readers) if it was
         * absent. The caller has {@link #reserve}d room.
         */
        int findOrAdd(int key) {
            long[] t = table;
            int mask = t.length - 1;
            for (int i = home(key); ; i = (i + 1) & mask) {
                int k = (int) (t[i] >>> 32);
                if (k == key) {
                    return i;
                }
                if (k == 0) {
                    t[i] = (long) key << 32;
                    size++;
                    return i;
                }
            }
        }

        private void grow() {
            long[] old = table;
            ArrayList<GraphNode<C>>[] oldReaders = readers;
            allocate(old.length * 2);
            int mask = table.length - 1;
            for (int j = 0; j < old.length; j++) {
                long e = old[j];
                if (e != 0) {
                    int i = home((int) (e >>> 32));
                    while (table[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    table[i] = e;
                    if (withReaders) {
                        readers[i] = oldReaders[j];
                    }
                }
            }
        }

        /** Empties slot {@code i}, shifting back later entries of its probe run. */
        void removeAt(int i) {
            long[] t = table;
            int mask = t.length - 1;
            int j = i;
            while (true) {
                j = (j + 1) & mask;
                long e = t[j];
                if (e == 0) {
                    break;
                }
                int h = home((int) (e >>> 32));
                // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
                boolean stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
                if (!stays) {
                    t[i] = e;
                    if (withReaders) {
                        readers[i] = readers[j];
                    }
                    i = j;
                }
            }
            t[i] = 0;
            if (withReaders) {
                readers[i] = null;
            }
            size--;
        }
    }
}
