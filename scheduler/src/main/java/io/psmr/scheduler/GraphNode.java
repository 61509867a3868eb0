package io.psmr.scheduler;

import java.util.ArrayList;

/**
 * A vertex of a dependency graph: §VI-A's tuple ⟨batch, deps, bDeps, status⟩. All fields are
 * guarded by the owning graph's lock.
 *
 * <p>{@code bDeps} is kept as its size, {@link #pendingDeps}: the graph only ever asks whether it
 * is empty, and a counter answers that without the cost of removing from a set.
 */
final class GraphNode<C extends Command> implements PendingBatch<C> {

    final Batch<C> batch;
    /** {@code batch.instance()}, kept here so that ordering the free queue reads no second object. */
    final long instance;
    final Object owner;
    /** Nodes that depend on this one: the edges E out of it. */
    final ArrayList<GraphNode<C>> deps = new ArrayList<>(2);
    /** Number of pending nodes this one depends on: |bDeps|. */
    int pendingDeps;
    /** status: taken or notTaken. */
    boolean taken;
    boolean removed;
    /** Links of the ordered nodeList. */
    GraphNode<C> prev;
    GraphNode<C> next;
    /** Stamp of the last insert that linked to this node; avoids duplicate edges in IndexedGraph (key modes). */
    long mark = -1;
    /**
     * Bitmap modes: the bits the index recorded for this node (writes first, then reads), kept so
     * that forgetting it needs no second decoding of its summary; null once forgotten, and in key
     * modes. Like {@link #mark}, these three fields belong to the index's owner, not to the lock.
     */
    int[] indexBits;
    /** How many of {@link #indexBits}, from the start, are writes. */
    int indexWrites;
    /** The index's small-integer name for this node while it is indexed (bitmap modes); 0 when not. */
    int indexId;

    GraphNode(Batch<C> batch, Object owner) {
        this.batch = batch;
        this.instance = batch.instance();
        this.owner = owner;
    }

    @Override
    public Batch<C> batch() {
        return batch;
    }

    @Override
    public String toString() {
        return "PendingBatch[" + batch.instance() + (taken ? ", taken" : "") + "]";
    }
}
