package io.psmr.proxy;

import io.psmr.kvstore.KvCommand;

/**
 * Which commands may share a batch: a {@link ClientProxy} fills each batch from one lane, the lane of the oldest queued
 * command, taking that lane's commands in arrival order and leaving the others queued, in order, for later batches.
 * {@link #ONE} (the default) puts every command in one lane. An ordering that routes a batch by what its commands touch
 * wants batches that touch little: MLBFT's lane is a command's set of partitions, so a batch is of one partition, or of
 * one set of partitions, as the thesis' requests are.
 *
 * <p>Called on the proxy's sender thread; must be pure and fast.
 */
@FunctionalInterface
public interface BatchLanes {

    /** Every command in one lane: batches in arrival order. */
    BatchLanes ONE = c -> 0;

    /** The lane of {@code command}. */
    long laneOf(KvCommand command);
}
