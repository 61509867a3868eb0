package io.psmr.kvstore;

import io.psmr.scheduler.ConflictSummary;
import java.util.List;
import java.util.Objects;

/**
 * A batch as a client proxy proposes it: who sent it (proxy id, the proxy's batch id), its
 * commands in execution order, and their conflict summary. Its instance is not part of it: the
 * ordering layer gives it one. Encoded by {@link KvCodec#encodeBatch}, decoded by {@link KvCodec#decodeBatch}.
 *
 * @param proxyId  the proposing proxy, unique among the proxies of a cluster; replies are routed to it
 * @param batchId  the proxy's identifier of the batch (for example a counter); echoed in replies
 * @param commands the commands, at least one
 * @param summary  the conflict summary of the commands, made by a {@link io.psmr.scheduler.SummaryBuilder}
 */
public record KvBatch(long proxyId, long batchId, List<KvCommand> commands, ConflictSummary summary) {

    /** Validates the fields; the command list is kept as given (not copied). */
    public KvBatch {
        Objects.requireNonNull(commands, "commands");
        Objects.requireNonNull(summary, "summary");
        if (commands.isEmpty()) {
            throw new IllegalArgumentException("batch " + batchId + " of proxy " + proxyId + " has no commands");
        }
    }
}
