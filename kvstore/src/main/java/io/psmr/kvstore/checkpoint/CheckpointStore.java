package io.psmr.kvstore.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A replica's checkpoints on disk, under {@code <root>/checkpoints/}.
 *
 * <h2>Layout</h2>
 * One directory per checkpoint, named by its instance zero-padded to 20 digits, holding
 * {@value #STORE_FILE} (a Chronicle Map file, the store at that instance), {@value #STATE_FILE}
 * (opaque bytes from the caller: reply cache, sessions, counters, the ordering layer's resume
 * state) and {@value #MANIFEST_FILE} ({@link CheckpointManifest}: instance, digest, entry count,
 * length and CRC-32C of both files).
 *
 * <h2>Crash safety</h2>
 * A checkpoint is written in a directory named {@code tmp-<instance>-<n>}, its files and the
 * directory are fsynced, and it is renamed to its final name atomically; so a directory with a
 * 20-digit name is complete, and a {@code tmp-} directory is a half-written one, ignored by
 * {@link #list()} and deleted by {@link #open(Path, int)}. Retention keeps the newest {@code retain}
 * checkpoints and deletes older ones only after a newer one is complete.
 *
 * <h2>Threads</h2>
 * Safe for concurrent use: committing and retention are serialised on this object; reading
 * methods may run alongside (a checkpoint being read may be deleted by retention: a reader that
 * needs it whole holds open file handles, as {@link CheckpointServer} does).
 */
public final class CheckpointStore {

    /** The Chronicle Map file of a checkpoint. */
    public static final String STORE_FILE = "store.cm";
    /** The caller's opaque state. */
    public static final String STATE_FILE = "state.bin";
    /** The manifest. */
    public static final String MANIFEST_FILE = "manifest.properties";
    /** How many checkpoints are kept by default. */
    public static final int DEFAULT_RETAIN = 2;

    private static final Pattern COMPLETE = Pattern.compile("\\d{20}");
    private static final String TEMP_PREFIX = "tmp-";

    private final Path dir;
    private final int retain;
    private final AtomicLong tempCounter = new AtomicLong();

    private CheckpointStore(Path dir, int retain) {
        this.dir = dir;
        this.retain = retain;
    }

    /**
     * Opens (creating if needed) the checkpoints under {@code root}, deleting half-written ones.
     *
     * @param retain how many complete checkpoints to keep, at least 1
     */
    public static CheckpointStore open(Path root, int retain) throws IOException {
        Objects.requireNonNull(root, "root");
        if (retain < 1) {
            throw new IllegalArgumentException("retain must be at least 1, got " + retain);
        }
        Path dir = root.resolve("checkpoints");
        Files.createDirectories(dir);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, TEMP_PREFIX + "*")) {
            for (Path p : ds) {
                deleteTree(p);
            }
        }
        return new CheckpointStore(dir, retain);
    }

    /** The {@code checkpoints} directory. */
    public Path directory() {
        return dir;
    }

    /** The directory a complete checkpoint of {@code instance} has. */
    public Path directory(long instance) {
        return dir.resolve(name(instance));
    }

    static String name(long instance) {
        if (instance < 0) {
            throw new IllegalArgumentException("an instance is not negative, got " + instance);
        }
        return String.format("%020d", instance);
    }

    /** The instances of the complete checkpoints, oldest first. */
    public List<Long> list() throws IOException {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (COMPLETE.matcher(n).matches() && Files.isRegularFile(p.resolve(MANIFEST_FILE))) {
                    out.add(Long.parseLong(n));
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    /**
     * The newest complete checkpoint's instance in checkpoint directory {@code root}, read without opening (or
     * creating) a store; empty if there is none or no directory.
     */
    public static OptionalLong latestIn(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return OptionalLong.empty();
        }
        long newest = -1;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (COMPLETE.matcher(n).matches() && Files.isRegularFile(p.resolve(MANIFEST_FILE))) {
                    newest = Math.max(newest, Long.parseLong(n));
                }
            }
        }
        return newest < 0 ? OptionalLong.empty() : OptionalLong.of(newest);
    }

    /** The newest complete checkpoint's instance, if any. */
    public OptionalLong latest() throws IOException {
        List<Long> all = list();
        return all.isEmpty() ? OptionalLong.empty() : OptionalLong.of(all.get(all.size() - 1));
    }

    /**
     * Opens the checkpoint of {@code instance}, checking the manifest and each file's length and CRC-32C.
     *
     * @throws NoSuchFileException if there is no complete checkpoint of {@code instance}
     * @throws IOException         naming the damaged file and what is wrong with it
     */
    public Checkpoint open(long instance) throws IOException {
        Path d = directory(instance);
        Path m = d.resolve(MANIFEST_FILE);
        if (!Files.isRegularFile(m)) {
            throw new NoSuchFileException(d.toString(), null, "no complete checkpoint of instance " + instance);
        }
        CheckpointManifest manifest = CheckpointManifest.parse(Files.readAllBytes(m), m.toString());
        if (manifest.instance() != instance) {
            throw new IOException(m + ": the manifest names instance " + manifest.instance() + ", the directory " + instance);
        }
        check(d.resolve(STORE_FILE), manifest.storeLength(), manifest.storeCrc(), instance);
        check(d.resolve(STATE_FILE), manifest.stateLength(), manifest.stateCrc(), instance);
        return new Checkpoint(d, manifest);
    }

    private static void check(Path file, long length, long crc, long instance) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("checkpoint " + instance + " is damaged: " + file + " is missing");
        }
        long actualLength = Files.size(file);
        if (actualLength != length) {
            throw new IOException("checkpoint " + instance + " is damaged: " + file + " has " + actualLength
                    + " bytes, the manifest says " + length);
        }
        long actualCrc = FileChecks.crc32c(file);
        if (actualCrc != crc) {
            throw new IOException("checkpoint " + instance + " is damaged: " + file + " has CRC-32C "
                    + CheckpointManifest.crcHex(actualCrc) + ", the manifest says " + CheckpointManifest.crcHex(crc));
        }
    }

    /**
     * Takes a checkpoint of {@code store} at {@code instance}: begins its snapshot (the caller's only
     * pause; call while no command executes, as {@link SnapshottingStore#begin} requires) straight
     * into a new checkpoint directory, and completes it on the snapshot's writer thread.
     *
     * @param state the caller's state at {@code instance}; not modified afterwards
     * @return completes with the checkpoint once it is durable and renamed, or fails (nothing is
     *         left behind then)
     * @throws IllegalStateException as {@link SnapshottingStore#begin}, if a snapshot is running
     */
    public CompletableFuture<Checkpoint> take(long instance, SnapshottingStore store, byte[] state) throws IOException {
        Objects.requireNonNull(state, "state");
        Staged staged = stage(instance);
        SnapshottingStore.Snapshot s;
        try {
            s = store.begin(instance, staged.storeFile());
        } catch (RuntimeException e) {
            staged.abort();
            throw e;
        }
        return s.completion().handle((r, failure) -> {
            try {
                if (failure != null) {
                    throw new IOException("the snapshot of instance " + instance + " failed: " + failure.getMessage(), failure);
                }
                Files.write(staged.stateFile(), state);
                return staged.commit(r.digest(), r.entries());
            } catch (IOException | RuntimeException e) {
                staged.abort();
                throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
            }
        });
    }

    /**
     * Writes a checkpoint from a completed, closed Chronicle Map file (copied, not moved): its digest
     * and entry count are computed by opening the copy.
     */
    public Checkpoint write(long instance, byte[] state, Path completedStoreFile) throws IOException {
        Objects.requireNonNull(state, "state");
        Staged staged = stage(instance);
        try {
            Files.copy(completedStoreFile, staged.storeFile());
            Files.write(staged.stateFile(), state);
            StoreFiles.Summary s = StoreFiles.summarize(staged.storeFile());
            return staged.commit(s.digest(), s.entries());
        } catch (IOException | RuntimeException e) {
            staged.abort();
            throw e;
        }
    }

    /** A new temporary directory for a checkpoint of {@code instance}. */
    Staged stage(long instance) throws IOException {
        name(instance);
        Path t = dir.resolve(TEMP_PREFIX + name(instance) + "-" + ProcessHandle.current().pid() + "-" + tempCounter.incrementAndGet());
        Files.createDirectory(t);
        return new Staged(instance, t);
    }

    private synchronized Checkpoint publish(Staged s, CheckpointManifest m) throws IOException {
        Path target = directory(s.instance);
        if (Files.exists(target)) {
            throw new IOException("a checkpoint of instance " + s.instance + " exists already at " + target);
        }
        Path manifest = s.dir.resolve(MANIFEST_FILE);
        Files.write(manifest, m.toBytes());
        FileChecks.fsync(s.storeFile());
        FileChecks.fsync(s.stateFile());
        FileChecks.fsync(manifest);
        FileChecks.fsyncDirectory(s.dir);
        Files.move(s.dir, target, StandardCopyOption.ATOMIC_MOVE);
        FileChecks.fsyncDirectory(dir);
        applyRetention();
        return new Checkpoint(target, m);
    }

    /**
     * Moves {@code checkpoint}, a complete checkpoint of another store under the same replica directory (one fetched
     * into a staging store and accepted since), into this store by one atomic rename, then applies retention. Until
     * the rename the checkpoint is not in this store at all, so a crash leaves it where it was.
     *
     * @return the checkpoint at its new place
     * @throws FileAlreadyExistsException if this store holds a checkpoint of that instance already (nothing moved)
     * @throws IOException                if the rename fails (the two stores on different file systems, for one)
     */
    public synchronized Checkpoint moveIn(Checkpoint checkpoint) throws IOException {
        Path target = directory(checkpoint.instance());
        if (Files.exists(target)) {
            throw new FileAlreadyExistsException(target.toString(), null,
                    "a checkpoint of instance " + checkpoint.instance() + " exists already");
        }
        Path from = checkpoint.directory();
        Files.move(from, target, StandardCopyOption.ATOMIC_MOVE);
        FileChecks.fsyncDirectory(dir);
        FileChecks.fsyncDirectory(from.getParent());
        applyRetention();
        return new Checkpoint(target, checkpoint.manifest());
    }

    /** Deletes all but the newest {@code retain} complete checkpoints. Holding this object's lock. */
    private void applyRetention() throws IOException {
        List<Long> all = list();
        for (int i = 0; i < all.size() - retain; i++) {
            deleteTree(directory(all.get(i)));
        }
    }

    /**
     * Deletes the checkpoint of {@code instance} if it exists: one fetched from a peer that turned out not to be the
     * certified state is of no further use.
     */
    public void delete(long instance) throws IOException {
        Path d = directory(instance);
        if (Files.exists(d)) {
            deleteTree(d);
        }
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        Files.walkFileTree(p, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    @Override
    public String toString() {
        return "CheckpointStore[" + dir + ", keeps " + retain + "]";
    }

    /** A checkpoint being written in its temporary directory. */
    final class Staged {
        final long instance;
        final Path dir;

        Staged(long instance, Path dir) {
            this.instance = instance;
            this.dir = dir;
        }

        Path storeFile() {
            return dir.resolve(STORE_FILE);
        }

        Path stateFile() {
            return dir.resolve(STATE_FILE);
        }

        /** Computes lengths and CRCs, writes the manifest, syncs and renames. */
        Checkpoint commit(long digest, long entries) throws IOException {
            CheckpointManifest m = new CheckpointManifest(instance, digest, entries,
                    Files.size(storeFile()), FileChecks.crc32c(storeFile()),
                    Files.size(stateFile()), FileChecks.crc32c(stateFile()));
            return publish(this, m);
        }

        /** Publishes files already checked against {@code m} (by the caller, while receiving them). */
        Checkpoint commitChecked(CheckpointManifest m) throws IOException {
            if (m.instance() != instance) {
                throw new IllegalArgumentException("manifest of " + m.instance() + " for a checkpoint of " + instance);
            }
            return publish(this, m);
        }

        /** Deletes the temporary directory. */
        void abort() {
            try {
                deleteTree(dir);
            } catch (IOException ignored) {
                // left for the next open(), which deletes tmp- directories
            }
        }
    }
}
