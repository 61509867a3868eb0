package io.psmr.kvstore.checkpoint;

import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;

/**
 * A {@link KvStore} decorator that takes copy-on-write snapshots of the store it wraps: the
 * replica executes on this store, and {@link #begin} captures the state at a quiesce point while
 * execution continues.
 *
 * <h2>How a snapshot is taken</h2>
 * {@link #begin} is called while no command executes (the replica has quiesced its scheduler at
 * instance n). It only switches recording on and hands the work to this store's writer thread, so
 * its pause is a volatile write and a queue hand-off ({@link #lastPauseNanos()}). From then on every
 * write first records the key's <i>before-image</i> (its value at begin, or "absent") if the key
 * has none recorded yet, then writes. The writer thread
 * <ol>
 *   <li>iterates the live store and puts every entry it sees into a new persisted Chronicle Map
 *       file (the same format as a persisted {@link io.psmr.kvstore.ChronicleKvStore});</li>
 *   <li>switches recording off;</li>
 *   <li>overwrites the file with every recorded before-image (put, or remove for "absent");</li>
 *   <li>drops the before-images and computes the file's {@link StateDigest} by one pass over it.</li>
 * </ol>
 *
 * <h2>Why the file holds exactly the state at begin</h2>
 * Take any key k and its first write w after begin (writes are serialised per key: the scheduler
 * never runs two writers of one key at once, so "first" is well defined and w's recorded
 * before-image, read just before w, is k's value at begin).
 * <ul>
 *   <li>No such w before the iteration passes k: the iteration sees k's value at begin (or does not
 *       see k, if absent at begin). If w comes later, its before-image, when applied, is that same
 *       value, so applying it or missing it leaves the right value.</li>
 *   <li>The iteration observes w's effect (a new value, or k missing): then w happens-before that
 *       observation (the delegate's write and iteration synchronise, as Chronicle Map's segment
 *       locks and ConcurrentHashMap's volatile accesses do), and the record happens-before w, so
 *       step 3, which runs after the iteration, sees the record and puts the value at begin back.</li>
 *   <li>The iteration visits each key at most once and step 3 runs after it, so nothing overwrites a
 *       before-image once applied.</li>
 * </ul>
 * A write that finds recording off (step 2 done) comes after the iteration and cannot reach the file.
 *
 * <h2>Memory</h2>
 * The before-images are at most one per distinct key written during the snapshot (key, value and
 * about {@value #IMAGE_OVERHEAD_BYTES} bytes of map overhead each). They are bounded by
 * {@code maxRecordedBytes}: a snapshot that would exceed it is abandoned (its future fails with a
 * message saying so and the partial file is deleted); writes are never refused, since a refusal
 * would depend on timing and differ between replicas.
 *
 * <h2>Threads</h2>
 * The read and write methods are called by the scheduler's workers, concurrently, never two writers
 * of one key at once (as {@link KvStore} already requires of its callers). {@link #begin} is called by
 * the replica's delivery thread while nothing executes. One snapshot runs at a time, on a thread this
 * store owns ({@code psmr-snapshot-writer}); {@link #begin} while one runs throws
 * {@link IllegalStateException} (check {@link #snapshotRunning()} to skip instead).
 * The delegate's {@code forEach} must tolerate concurrent writes and visit each key at most once
 * (Chronicle Map and {@link java.util.concurrent.ConcurrentHashMap} do).
 */
public final class SnapshottingStore implements KvStore {

    /** Approximate per-image overhead on the heap (map node, ByteBuffer wrapper, array headers). */
    static final int IMAGE_OVERHEAD_BYTES = 96;

    /** Marks a key absent at begin; compared by identity, never equal to a value read from the store. */
    private static final byte[] ABSENT = new byte[0];

    private final KvStore live;
    private final StoreConfig sizing;
    private final long maxRecordedBytes;
    private final ExecutorService writer;
    private final AtomicReference<Snapshot> running = new AtomicReference<>();
    private volatile Recording recording;
    private volatile long lastPauseNanos = -1;
    private volatile boolean closed;

    /** Test switch: false breaks the copy-on-write rule, to show the tests notice. */
    volatile boolean recordBeforeImages = true;

    /** Test hook: called on the writer thread with the entries visited so far (0 before the iteration). */
    volatile LongConsumer progressHook;

    /**
     * Wraps {@code live}.
     *
     * @param live             the replica's store; this decorator owns it from now on and closes it
     * @param sizing           how to size snapshot files: Chronicle Map with the replica's entry count
     *                         and average key and value sizes (its path is ignored); a file is sized
     *                         for at least the live store's entry count
     * @param maxRecordedBytes the bound on before-images per snapshot (see Memory above)
     */
    public SnapshottingStore(KvStore live, StoreConfig sizing, long maxRecordedBytes) {
        this.live = Objects.requireNonNull(live, "live");
        this.sizing = Objects.requireNonNull(sizing, "sizing");
        if (sizing.backend() != StoreConfig.Backend.CHRONICLE) {
            throw new IllegalArgumentException("snapshot files are Chronicle Maps; the sizing must name the CHRONICLE backend, got "
                    + sizing.backend());
        }
        if (maxRecordedBytes < 1) {
            throw new IllegalArgumentException("maxRecordedBytes must be positive, got " + maxRecordedBytes);
        }
        this.maxRecordedBytes = maxRecordedBytes;
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(1), r -> {
            Thread t = new Thread(r, "psmr-snapshot-writer");
            t.setDaemon(true);
            return t;
        });
        // Start the thread and load the classes begin() uses now, so that begin's pause is a handoff.
        pool.prestartCoreThread();
        new Recording().images.clear();
        this.writer = pool;
    }

    /**
     * Starts a snapshot of the current state into {@code file}, which must not exist (its directory
     * must). Call only while no command executes; returns as soon as recording is on.
     *
     * @param instance the delivered instance the state corresponds to (a label carried in the result)
     * @throws IllegalStateException if a snapshot is running or the store is closed
     * @throws IllegalArgumentException if {@code file} exists
     */
    public Snapshot begin(long instance, Path file) {
        long start = System.nanoTime();
        Objects.requireNonNull(file, "file");
        if (closed) {
            throw new IllegalStateException("the store is closed; cannot snapshot instance " + instance);
        }
        if (Files.exists(file)) {
            throw new IllegalArgumentException("the snapshot file " + file + " exists already; a snapshot writes a new file");
        }
        Snapshot s = new Snapshot(instance, file);
        Snapshot other = running.compareAndExchange(null, s);
        if (other != null) {
            throw new IllegalStateException("a snapshot of instance " + other.instance
                    + " is still being written; cannot begin one at instance " + instance);
        }
        Recording r = new Recording();
        recording = r;
        writer.execute(new WriteTask(s, r));
        s.pauseNanos = System.nanoTime() - start;
        lastPauseNanos = s.pauseNanos;
        return s;
    }

    /** True while a snapshot is being written (then {@link #begin} would throw). */
    public boolean snapshotRunning() {
        return running.get() != null;
    }

    /** The pause of the latest {@link #begin}, in nanoseconds, or -1 before the first. */
    public long lastPauseNanos() {
        return lastPauseNanos;
    }

    /** The store being snapshotted. Writes to it directly bypass the copy-on-write rule. */
    public KvStore live() {
        return live;
    }

    private void write(Snapshot s, Recording r) {
        long start = System.nanoTime();
        long imagesApplied = 0;
        SnapshotResult result = null;
        Throwable failure = null;
        try {
            long size = live.size();
            StoreConfig fileConfig = new StoreConfig(StoreConfig.Backend.CHRONICLE,
                    Math.max(sizing.entries(), size + size / 8 + 1024), sizing.averageKeyBytes(),
                    sizing.averageValueBytes(), s.file);
            long entries;
            long digest;
            LongConsumer hook = progressHook;
            long[] visited = {0};
            try (KvStore snap = fileConfig.open()) {
                if (hook != null) {
                    hook.accept(0);
                }
                live.forEach((k, v) -> {
                    if (closed) {
                        throw new CancellationException("the store was closed");
                    }
                    snap.put(k, v);
                    if (hook != null) {
                        hook.accept(++visited[0]);
                    }
                });
                recording = null; // step 2: writes from now on cannot reach the file
                for (Map.Entry<ByteBuffer, byte[]> e : r.images.entrySet()) {
                    byte[] k = e.getKey().array();
                    if (e.getValue() == ABSENT) {
                        snap.remove(k);
                    } else {
                        snap.put(k, e.getValue());
                    }
                    imagesApplied++;
                }
                r.images.clear();
                if (r.overflowed) {
                    throw new IllegalStateException("the snapshot of instance " + s.instance
                            + " was abandoned: its before-images exceeded " + maxRecordedBytes + " bytes");
                }
                entries = snap.size();
                digest = StateDigest.of(snap);
            }
            result = new SnapshotResult(s.instance, s.file, entries, digest, s.pauseNanos,
                    System.nanoTime() - start, imagesApplied);
        } catch (RuntimeException | Error e) {
            failure = e;
            try {
                Files.deleteIfExists(s.file);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
        } finally {
            if (recording == r) {
                recording = null;
            }
            r.images.clear();
            running.set(null); // before completing, so that whoever waits may begin the next one
        }
        if (failure == null) {
            s.future.complete(result);
        } else {
            s.future.completeExceptionally(failure);
        }
    }

    private void record(byte[] key) {
        Recording r = recording;
        if (r != null && recordBeforeImages) {
            r.record(key);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        return live.get(key);
    }

    @Override
    public boolean putIfAbsent(byte[] key, byte[] value) {
        record(key);
        return live.putIfAbsent(key, value);
    }

    @Override
    public boolean replace(byte[] key, byte[] value) {
        record(key);
        return live.replace(key, value);
    }

    @Override
    public void put(byte[] key, byte[] value) {
        record(key);
        live.put(key, value);
    }

    @Override
    public boolean remove(byte[] key) {
        record(key);
        return live.remove(key);
    }

    // The replica's service writes through these: one lookup each, as on the live store (the defaults
    // would read first, then write).

    @Override
    public byte[] putAndGetPrevious(byte[] key, byte[] value) {
        record(key);
        return live.putAndGetPrevious(key, value);
    }

    @Override
    public byte[] replaceAndGetPrevious(byte[] key, byte[] value) {
        record(key);
        return live.replaceAndGetPrevious(key, value);
    }

    @Override
    public byte[] removeAndGetPrevious(byte[] key) {
        record(key);
        return live.removeAndGetPrevious(key);
    }

    @Override
    public int putReturningPreviousSize(byte[] key, byte[] value) {
        record(key);
        return live.putReturningPreviousSize(key, value);
    }

    @Override
    public int replaceReturningPreviousSize(byte[] key, byte[] value) {
        record(key);
        return live.replaceReturningPreviousSize(key, value);
    }

    @Override
    public int removeReturningPreviousSize(byte[] key) {
        record(key);
        return live.removeReturningPreviousSize(key);
    }

    @Override
    public long size() {
        return live.size();
    }

    @Override
    public void forEach(BiConsumer<byte[], byte[]> action) {
        live.forEach(action);
    }

    /**
     * Abandons a running snapshot (its future fails), stops the writer thread and closes the live
     * store. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        writer.shutdown();
        try {
            if (!writer.awaitTermination(30, TimeUnit.SECONDS)) {
                writer.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        live.close();
    }

    @Override
    public String toString() {
        Snapshot s = running.get();
        return "SnapshottingStore[" + live + (s == null ? "" : ", writing the snapshot of instance " + s.instance) + "]";
    }

    /** The writer thread's job (a class, not a lambda: no bootstrap on the first begin). */
    private final class WriteTask implements Runnable {
        private final Snapshot snapshot;
        private final Recording recording;

        WriteTask(Snapshot snapshot, Recording recording) {
            this.snapshot = snapshot;
            this.recording = recording;
        }

        @Override
        public void run() {
            write(snapshot, recording);
        }
    }

    /** The before-images of one snapshot. */
    private final class Recording {
        final ConcurrentHashMap<ByteBuffer, byte[]> images = new ConcurrentHashMap<>();
        final AtomicLong bytes = new AtomicLong();
        volatile boolean overflowed;

        void record(byte[] key) {
            ByteBuffer k = ByteBuffer.wrap(key); // callers never modify a key handed to the store
            if (overflowed || images.containsKey(k)) {
                return; // writers of one key are serialised, so no other thread records k meanwhile
            }
            byte[] before = live.get(key);
            long cost = key.length + (before == null ? 0 : before.length) + IMAGE_OVERHEAD_BYTES;
            if (bytes.addAndGet(cost) > maxRecordedBytes) {
                overflowed = true; // acts as the record: seen by step 3 exactly when a record would be
                images.clear();
                return;
            }
            images.put(k, before == null ? ABSENT : before);
        }
    }

    /** A running snapshot: its instance, file, pause and completion. */
    public static final class Snapshot {
        private final long instance;
        private final Path file;
        private final CompletableFuture<SnapshotResult> future = new CompletableFuture<>();
        private volatile long pauseNanos;

        private Snapshot(long instance, Path file) {
            this.instance = instance;
            this.file = file;
        }

        /** The instance it captures. */
        public long instance() {
            return instance;
        }

        /** The Chronicle Map file being written. */
        public Path file() {
            return file;
        }

        /** How long {@link #begin} held the caller, in nanoseconds. */
        public long pauseNanos() {
            return pauseNanos;
        }

        /**
         * Completes on the writer thread when the file is complete and closed, or fails (the file is
         * then deleted). Dependent stages without an executor run on the writer thread.
         */
        public CompletableFuture<SnapshotResult> completion() {
            return future;
        }
    }
}
