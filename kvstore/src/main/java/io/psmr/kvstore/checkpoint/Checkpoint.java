package io.psmr.kvstore.checkpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A complete checkpoint on disk, as returned by {@link CheckpointStore#open}: its lengths and CRCs
 * were checked when it was opened. It may be deleted by retention later; use it promptly, or copy it.
 *
 * @param directory the checkpoint's directory ({@code <root>/checkpoints/<instance, 20 digits>})
 * @param manifest  its manifest
 */
public record Checkpoint(Path directory, CheckpointManifest manifest) {

    /** The instance it captures. */
    public long instance() {
        return manifest.instance();
    }

    /** The store's {@link io.psmr.kvstore.StateDigest}. */
    public long storeDigest() {
        return manifest.storeDigest();
    }

    /** The Chronicle Map file. Open a copy, not this file, if the store will be written. */
    public Path storeFile() {
        return directory.resolve(CheckpointStore.STORE_FILE);
    }

    /** The caller's opaque state bytes. */
    public Path stateFile() {
        return directory.resolve(CheckpointStore.STATE_FILE);
    }

    /** Reads {@link #stateFile()}. */
    public byte[] readState() throws IOException {
        return Files.readAllBytes(stateFile());
    }
}
