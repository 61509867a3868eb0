package io.psmr.ordering.protocol;

import java.util.List;

/**
 * What a {@link ProtocolCore} produced since its last {@link ProtocolCore#ready()}, as etcd raft's {@code Ready}.
 * The order of its parts is the order in which the host must handle them: first make every change of
 * {@link #writes()} durable, only then send {@link #messages()} (they may carry a promise or a vote the writes
 * record, which must never be forgotten once another node has seen it), and hand {@link #outputs()} to the
 * application; then {@link ProtocolCore#advance} the core. Immutable.
 *
 * @param writes   changes to the core's durable state, in the order they happened; replayed in that order onto
 *                 the state before them they give the state after them
 * @param messages messages to send, each to the receiver it names
 * @param outputs  what the host hands to the application, in the order the core produced it
 * @param <M>      the messages
 * @param <W>      the durable changes
 * @param <O>      the outputs
 */
public record Ready<M, W, O>(List<W> writes, List<M> messages, List<O> outputs) {

    private static final Ready<?, ?, ?> EMPTY = new Ready<>(List.of(), List.of(), List.of());

    /** Copies the lists, so that a Ready is immutable. */
    public Ready {
        writes = List.copyOf(writes);
        messages = List.copyOf(messages);
        outputs = List.copyOf(outputs);
    }

    /** The empty Ready: nothing to persist, send or output. */
    @SuppressWarnings("unchecked")
    public static <M, W, O> Ready<M, W, O> empty() {
        return (Ready<M, W, O>) EMPTY;
    }

    /** Whether there is nothing in it. */
    public boolean isEmpty() {
        return writes.isEmpty() && messages.isEmpty() && outputs.isEmpty();
    }
}
