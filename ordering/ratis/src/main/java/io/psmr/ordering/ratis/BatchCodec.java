package io.psmr.ordering.ratis;

import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the {@link PsmrStateMachine} needs to know about the application's log entries: how a
 * committed entry becomes a psmr {@link Batch}, and how the outcomes of its commands become the
 * reply Ratis returns to the client that submitted it.
 *
 * <p><b>Determinism.</b> Both methods must depend only on their arguments and on state that itself
 * depends only on the log (an exactly-once table updated in {@code decode}, for example): every
 * replica calls them with the same entries in the same order.
 *
 * <p><b>Threads.</b> {@link #decode} is called on Ratis' state machine updater thread, one entry at
 * a time, in log order, never concurrently with itself; it may keep state across calls without
 * locking. {@link #refusal} is called on that thread too. {@link #reply} is called on a scheduler worker thread, concurrently for batches that
 * do not conflict; it must not block (return a future that completes later instead).
 *
 * @param <C> the command type
 * @param <R> the result type
 */
public interface BatchCodec<C extends Command, R> {

    /**
     * Turns the committed entry at {@code index} into a batch whose instance is {@code index}, or
     * refuses it (malformed, over a limit, a summary that misses a key): a refusal must be decided
     * alike by every replica, and executes nothing.
     *
     * @param index the entry's log index, the batch's instance
     * @param entry the bytes the client submitted; not to be modified
     */
    Decoded<C> decode(long index, byte[] entry);

    /**
     * The reply to the client for {@code batch}, from its commands' outcomes in command order.
     * The adapter reports the batch applied as soon as this is called; the returned future only
     * delays the reply (for example until a duplicate's original result is known).
     */
    CompletableFuture<byte[]> reply(Batch<C> batch, List<Outcome<R>> outcomes);

    /**
     * The reply to the client for {@code batch}, which {@link #decode} made but the scheduler refused as a whole
     * (it breaks one of the scheduler's limits or rules; {@code reason} says which): none of its commands ran. The
     * refusal depends only on the batch, so every replica makes it alike. Called on the updater thread, like
     * {@link #decode} and right after it for this batch; it may undo what {@code decode} recorded for the batch (an
     * exactly-once table, say). The adapter reports the entry applied either way.
     *
     * <p>The default returns null: the entry's future then fails with the scheduler's
     * {@link IllegalArgumentException}, and Ratis answers the client with a generic {@code StateMachineException}.
     *
     * @param batch  the refused batch
     * @param reason the scheduler's reason
     * @return the reply to the client, or null for none
     */
    default byte[] refusal(Batch<C> batch, String reason) {
        return null;
    }

    /**
     * What {@link #decode} made of an entry: a batch to execute, or the reply refusing it.
     *
     * @param batch   the batch, or null when refused
     * @param refusal the reply to a refused entry, or null
     * @param <C>     the command type
     */
    record Decoded<C extends Command>(Batch<C> batch, byte[] refusal) {

        /** An entry to execute. */
        public static <C extends Command> Decoded<C> execute(Batch<C> batch) {
            if (batch == null) {
                throw new IllegalArgumentException("batch is null");
            }
            return new Decoded<>(batch, null);
        }

        /** An entry refused as a whole, answered with {@code reply}. */
        public static <C extends Command> Decoded<C> refuse(byte[] reply) {
            if (reply == null) {
                throw new IllegalArgumentException("refusal reply is null");
            }
            return new Decoded<>(null, reply);
        }
    }
}
