package io.psmr.kvstore.checkpoint;

import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;

/**
 * Turns a {@link Checkpoint} into a replica's live store.
 *
 * <ul>
 *   <li>A persisted Chronicle target ({@link StoreConfig#path()} set): {@value CheckpointStore#STORE_FILE}
 *       is copied next to the target path and renamed over it atomically, then opened. The file keeps
 *       the capacity it was written with (the snapshot sized it for the replica's entry count). An
 *       existing store file is replaced only with {@code replaceExisting}: no data is destroyed
 *       without an explicit flag.</li>
 *   <li>An in-memory target (Chronicle without a path, or the heap): a new store is opened and the
 *       entries are loaded into it.</li>
 * </ul>
 * Either way the installed store's digest is recomputed and must equal the manifest's.
 *
 * <p><b>Threads.</b> Blocks its caller for the copy and one pass over the store. Call before the
 * replica starts executing.
 */
public final class CheckpointInstaller {

    private CheckpointInstaller() {
    }

    /**
     * Installs {@code checkpoint} as a store described by {@code target}.
     *
     * @throws IOException if the target file exists and {@code replaceExisting} is false, if the
     *                     copy fails, or if the installed store's digest differs from the manifest's
     */
    public static InstalledCheckpoint install(Checkpoint checkpoint, StoreConfig target, boolean replaceExisting)
            throws IOException {
        Objects.requireNonNull(checkpoint, "checkpoint");
        Objects.requireNonNull(target, "target");
        byte[] state = checkpoint.readState();
        KvStore store;
        if (target.path() != null) {
            Path dest = target.path().toAbsolutePath();
            if (Files.exists(dest) && !replaceExisting) {
                throw new IOException("refusing to replace the existing store file " + dest + " with checkpoint "
                        + checkpoint.instance() + " without replaceExisting");
            }
            Path tmp = dest.resolveSibling(dest.getFileName() + ".installing");
            Files.copy(checkpoint.storeFile(), tmp, StandardCopyOption.REPLACE_EXISTING);
            FileChecks.fsync(tmp);
            Files.move(tmp, dest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            FileChecks.fsyncDirectory(dest.getParent());
            store = target.open();
        } else {
            store = target.open();
            try (KvStore source = StoreFiles.open(checkpoint.storeFile())) {
                source.forEach((k, v) -> store.put(k.clone(), v.clone())); // the source may reuse its arrays
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        }
        long digest = StateDigest.of(store);
        if (digest != checkpoint.storeDigest()) {
            store.close();
            throw new IOException("checkpoint " + checkpoint.instance() + " installed into " + target
                    + " has digest " + StateDigest.hex(digest) + ", the manifest says " + StateDigest.hex(checkpoint.storeDigest()));
        }
        return new InstalledCheckpoint(checkpoint.instance(), store, state, digest);
    }
}
