/**
 * Checkpoints and state transfer: {@link io.psmr.kvstore.checkpoint.SnapshottingStore} (copy-on-write
 * snapshots of a store at a quiesce point), {@link io.psmr.kvstore.checkpoint.CheckpointStore}
 * (checkpoints on disk, written atomically, with retention), {@link io.psmr.kvstore.checkpoint.CheckpointServer}
 * and {@link io.psmr.kvstore.checkpoint.CheckpointFetcher} (the newest checkpoint over HTTP, verified
 * before use) and {@link io.psmr.kvstore.checkpoint.CheckpointInstaller} (a checkpoint as the live store).
 * The replica decides when (every K delivered instances) and supplies the non-store state bytes.
 */
package io.psmr.kvstore.checkpoint;
