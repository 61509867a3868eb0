package io.psmr.ordering.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects a {@link ProtocolCore}'s outputs between two {@link Ready}s, and keeps the {@code ready}/{@code advance}
 * handshake: a core implements {@link ProtocolCore#ready()} with {@link #drain()} and
 * {@link ProtocolCore#advance} with {@link #advance}. Not thread-safe: the core's thread only.
 *
 * @param <M> the messages
 * @param <W> the durable changes
 * @param <O> the outputs
 */
public final class Outbox<M, W, O> {

    private final List<W> writes = new ArrayList<>();
    private final List<M> messages = new ArrayList<>();
    private final List<O> outputs = new ArrayList<>();
    // The last non-empty Ready drained and not yet advanced, or null.
    private Ready<M, W, O> unconfirmed;

    /** Records a change to the durable state, to be persisted before the messages that follow it are sent. */
    public void persist(W write) {
        writes.add(write);
    }

    /** Queues a message to send. */
    public void send(M message) {
        messages.add(message);
    }

    /** Queues an output for the host. */
    public void output(O output) {
        outputs.add(output);
    }

    /**
     * Returns everything collected since the last drain and starts empty again.
     *
     * @throws IllegalStateException if the previous non-empty Ready was not advanced
     */
    public Ready<M, W, O> drain() {
        if (unconfirmed != null) {
            throw new IllegalStateException("ready() before advance() of the previous Ready: persist its writes, send its"
                    + " messages, then advance it");
        }
        if (writes.isEmpty() && messages.isEmpty() && outputs.isEmpty()) {
            return Ready.empty();
        }
        Ready<M, W, O> ready = new Ready<>(writes, messages, outputs);
        writes.clear();
        messages.clear();
        outputs.clear();
        unconfirmed = ready;
        return ready;
    }

    /**
     * Confirms {@code ready}, the last Ready drained: its writes are durable, its messages sent. Does nothing for an
     * empty Ready.
     *
     * @throws IllegalArgumentException if {@code ready} is not the Ready awaiting confirmation
     */
    public void advance(Ready<M, W, O> ready) {
        if (ready.isEmpty()) {
            return;
        }
        if (ready != unconfirmed) {
            throw new IllegalArgumentException("advance() of a Ready that is not the last one returned by ready()");
        }
        unconfirmed = null;
    }
}
