package io.psmr.kvstore.checkpoint;

import java.nio.file.Path;

/**
 * A finished snapshot: a closed Chronicle Map file holding the store's state at {@code instance}.
 *
 * @param instance      the instance the state corresponds to
 * @param file          the Chronicle Map file
 * @param entries       its number of entries
 * @param digest        its {@link io.psmr.kvstore.StateDigest}, computed from the file
 * @param pauseNanos    how long {@link SnapshottingStore#begin} held the caller
 * @param writeNanos    how long the writer thread took
 * @param imagesApplied how many before-images were recorded and applied
 */
public record SnapshotResult(long instance, Path file, long entries, long digest, long pauseNanos, long writeNanos,
                             long imagesApplied) {
}
