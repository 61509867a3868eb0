package io.psmr.kvstore;

import java.util.Objects;

/**
 * A replica's answer to one command of a batch, or to a whole batch, addressed to the proxy that
 * proposed it. Every replica sends one for each command; the proxy completes a command on the
 * first and ignores the rest (they are equal: results depend only on delivered data).
 *
 * @param replicaId the answering replica
 * @param proxyId   the proxy that proposed the batch
 * @param batchId   the proxy's batch id
 * @param index     the command's index in the batch, or {@link #WHOLE_BATCH}: the result then
 *                  answers every command of the batch (a batch refused as a whole: malformed, too
 *                  large, or rejected; nothing in it executed)
 * @param instance  the instance the batch was delivered at
 * @param result    the result
 */
public record KvReply(int replicaId, long proxyId, long batchId, int index, long instance, KvResult result) {

    /** The index of a reply that answers every command of its batch. */
    public static final int WHOLE_BATCH = -1;

    /** Validates the fields. */
    public KvReply {
        Objects.requireNonNull(result, "result");
        if (index < WHOLE_BATCH) {
            throw new IllegalArgumentException("reply index must be a command index or WHOLE_BATCH, got " + index);
        }
    }

    /** Whether this reply answers every command of its batch. */
    public boolean isWholeBatch() {
        return index == WHOLE_BATCH;
    }
}
