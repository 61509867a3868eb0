package io.psmr.proxy;

import io.psmr.kvstore.KvCommand;

/**
 * The batch a {@link ClientProxy} is sealing, as its {@link BatchDecorator} sees it: the client
 * commands are chosen, and the decorator may append commands of its own before the summary is built
 * and the batch encoded. Valid only during {@link BatchDecorator#onSeal}, on the proxy's sender
 * thread; the proxy reuses one instance for every batch, so a decorator must not keep it.
 */
public interface SealingBatch {

    /** The batch's number among the proxy's new batches: 0, 1, 2, … (retries are not new batches). */
    long number();

    /** The id of the proxy forming it; client id {@code proxyId << 32} is reserved for the decorator. */
    long proxyId();

    /** How many client commands it carries (at least 1). */
    int clientCommands();

    /** How many commands {@link #add} has appended so far. */
    int added();

    /**
     * Appends {@code command} after the client commands (and after earlier added ones). Its reply
     * goes to {@link BatchDecorator#onResult}, never to a client's future; the batch's conflict
     * summary covers its keys like any other command's.
     *
     * @throws IllegalArgumentException if the command breaks a per-command limit of the cluster, or
     *                                  does not fit in the bytes the decorator reserved
     *                                  ({@link BatchDecorator#maxAddedBytes()})
     * @throws IllegalStateException    if the decorator's {@link BatchDecorator#maxAddedCommands()} are
     *                                  already added, or the batch is sealed (called after {@code onSeal} returned)
     */
    void add(KvCommand command);
}
