package io.psmr.kvstore;

import io.psmr.ordering.AtomicBroadcast;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.GraphKind;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.scheduler.SchedulerBuilder;
import java.util.Objects;

/**
 * The settings of a {@link Replica}. The conflict detection, limits, session settings and capacity are
 * part of the replicated configuration: every replica (and, for detection and limits, every proxy) of a
 * cluster must use the same. Workers, pending bound, decode-ahead bound, graph kind, sequential mode and store are local
 * choices that never change results.
 *
 * @param replicaId       identifies the replica in its replies
 * @param detection       conflict detection; proxies must summarise under the same (default Roaring
 *                        BITMAP of 1,024,000 bits)
 * @param graph           the dependency graph kind (default INDEXED)
 * @param workers         worker threads (default: available processors)
 * @param maxPending      most batches in the scheduler's graph before delivery blocks (default {@link SchedulerBuilder#DEFAULT_MAX_PENDING}, 64)
 * @param sequential      classic SMR: execute on the delivery thread, no graph, no workers (default false)
 * @param limits          size limits (default {@link KvLimits#defaults()})
 * @param store           the store to open (default in-memory Chronicle Map)
 * @param replyCacheWindow results kept per session for exactly-once (default 16)
 * @param maxSessions     open client sessions kept (default 16,384); see {@link SessionTable}
 * @param sessionTimeoutInstances delivered instances after which an unused session expires (default 1,000,000)
 * @param capacity        the store's replicated capacity (default {@link StoreCapacity#unbounded()}); writes
 *                        beyond it are refused FULL
 * @param fromInstance    the first instance to deliver (default {@link AtomicBroadcast#FIRST_INSTANCE})
 * @param decodeAhead     most delivered values decoded and verified ahead of admission, waiting for the
 *                        replica's delivery thread (default {@value #DEFAULT_DECODE_AHEAD}); the
 *                        subscription's thread blocks beyond it. See {@link DecodeStage}
 */
public record ReplicaConfig(int replicaId, ConflictDetection detection, GraphKind graph, int workers, int maxPending,
                            boolean sequential, KvLimits limits, StoreConfig store, int replyCacheWindow,
                            int maxSessions, long sessionTimeoutInstances, StoreCapacity capacity, long fromInstance,
                            int decodeAhead) {

    /** The default {@link #decodeAhead()}. */
    public static final int DEFAULT_DECODE_AHEAD = 8;

    /** Validates the settings. */
    public ReplicaConfig {
        Objects.requireNonNull(detection, "detection");
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(capacity, "capacity");
        if (limits.maxCommandsPerBatch() > SessionTable.SESSION_ID_STRIDE) {
            throw new IllegalArgumentException("limits.maxCommandsPerBatch must be at most " + SessionTable.SESSION_ID_STRIDE
                    + " (session ids number a batch's commands in 16 bits), got " + limits.maxCommandsPerBatch());
        }
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, got " + workers);
        }
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending must be at least 1, got " + maxPending);
        }
        if (replyCacheWindow < 1) {
            throw new IllegalArgumentException("replyCacheWindow must be at least 1, got " + replyCacheWindow);
        }
        if (maxSessions < 1) {
            throw new IllegalArgumentException("maxSessions must be at least 1, got " + maxSessions);
        }
        if (sessionTimeoutInstances < 1) {
            throw new IllegalArgumentException("sessionTimeoutInstances must be at least 1, got " + sessionTimeoutInstances);
        }
        if (decodeAhead < 1) {
            throw new IllegalArgumentException("decodeAhead must be at least 1, got " + decodeAhead);
        }
        if (fromInstance < AtomicBroadcast.FIRST_INSTANCE) {
            throw new IllegalArgumentException("fromInstance must be at least " + AtomicBroadcast.FIRST_INSTANCE
                    + ", got " + fromInstance);
        }
    }

    /** A builder with the defaults above. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.replicaId = replicaId;
        b.detection = detection;
        b.graph = graph;
        b.workers = workers;
        b.maxPending = maxPending;
        b.sequential = sequential;
        b.limits = limits;
        b.store = store;
        b.replyCacheWindow = replyCacheWindow;
        b.maxSessions = maxSessions;
        b.sessionTimeoutInstances = sessionTimeoutInstances;
        b.capacity = capacity;
        b.fromInstance = fromInstance;
        b.decodeAhead = decodeAhead;
        return b;
    }

    /** Builds a {@link ReplicaConfig}; not thread-safe. */
    public static final class Builder {
        private int replicaId = 1;
        private ConflictDetection detection = ConflictDetection.bitmap(ConflictDetection.DEFAULT_BITMAP_BITS);
        private GraphKind graph = GraphKind.SPLIT_INDEXED;
        private int workers = Runtime.getRuntime().availableProcessors();
        private int maxPending = SchedulerBuilder.DEFAULT_MAX_PENDING;
        private boolean sequential;
        private KvLimits limits = KvLimits.defaults();
        private StoreConfig store = StoreConfig.defaults();
        private int replyCacheWindow = 16;
        private int maxSessions = 16_384;
        private long sessionTimeoutInstances = 1_000_000;
        private StoreCapacity capacity = StoreCapacity.unbounded();
        private long fromInstance = AtomicBroadcast.FIRST_INSTANCE;
        private int decodeAhead = DEFAULT_DECODE_AHEAD;

        private Builder() {
        }

        /** See {@link ReplicaConfig#replicaId()}. */
        public Builder replicaId(int id) {
            this.replicaId = id;
            return this;
        }

        /**
         * The scheduler configuration {@code m}: its conflict detection (bitmaps of the default size),
         * its graph, and whether the replica runs sequentially.
         */
        public Builder mode(SchedulerMode m) {
            return detection(m.detection())
                    .graph(m.parallel() ? m.graph() : GraphKind.SPLIT_INDEXED)
                    .sequential(!m.parallel());
        }

        /** See {@link ReplicaConfig#detection()}. */
        public Builder detection(ConflictDetection d) {
            this.detection = d;
            return this;
        }

        /** See {@link ReplicaConfig#graph()}. */
        public Builder graph(GraphKind g) {
            this.graph = g;
            return this;
        }

        /** See {@link ReplicaConfig#workers()}. */
        public Builder workers(int n) {
            this.workers = n;
            return this;
        }

        /** See {@link ReplicaConfig#maxPending()}. */
        public Builder maxPending(int n) {
            this.maxPending = n;
            return this;
        }

        /** See {@link ReplicaConfig#sequential()}. */
        public Builder sequential(boolean s) {
            this.sequential = s;
            return this;
        }

        /** See {@link ReplicaConfig#limits()}. */
        public Builder limits(KvLimits l) {
            this.limits = l;
            return this;
        }

        /** See {@link ReplicaConfig#store()}. */
        public Builder store(StoreConfig s) {
            this.store = s;
            return this;
        }

        /** See {@link ReplicaConfig#replyCacheWindow()}. */
        public Builder replyCacheWindow(int n) {
            this.replyCacheWindow = n;
            return this;
        }

        /** See {@link ReplicaConfig#maxSessions()}. */
        public Builder maxSessions(int n) {
            this.maxSessions = n;
            return this;
        }

        /** See {@link ReplicaConfig#sessionTimeoutInstances()}. */
        public Builder sessionTimeoutInstances(long n) {
            this.sessionTimeoutInstances = n;
            return this;
        }

        /** See {@link ReplicaConfig#capacity()}. */
        public Builder capacity(StoreCapacity c) {
            this.capacity = c;
            return this;
        }

        /** See {@link ReplicaConfig#fromInstance()}. */
        public Builder fromInstance(long i) {
            this.fromInstance = i;
            return this;
        }

        /** See {@link ReplicaConfig#decodeAhead()}. */
        public Builder decodeAhead(int n) {
            this.decodeAhead = n;
            return this;
        }

        /** The validated settings. */
        public ReplicaConfig build() {
            return new ReplicaConfig(replicaId, detection, graph, workers, maxPending, sequential, limits, store,
                    replyCacheWindow, maxSessions, sessionTimeoutInstances, capacity, fromInstance,
                    decodeAhead);
        }
    }
}
