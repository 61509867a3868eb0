package io.psmr.kvstore.checkpoint;

import io.psmr.kvstore.KvStore;

/**
 * A checkpoint installed as a replica's live store.
 *
 * @param instance the instance the state corresponds to: the replica resumes after it
 * @param store    the open store holding the checkpoint's entries; the caller owns and closes it
 * @param state    the checkpoint's opaque state bytes (reply cache, sessions, ordering resume state)
 * @param digest   the store's {@link io.psmr.kvstore.StateDigest}, checked against the manifest
 */
public record InstalledCheckpoint(long instance, KvStore store, byte[] state, long digest) {
}
