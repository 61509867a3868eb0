package io.psmr.proxy;

import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvResult;

/**
 * A hook that adds commands of the caller's own to the batches a {@link ClientProxy} forms, as each
 * new batch is sealed (for instance a benchmark's writes of one shared hot key, which make a chosen
 * fraction of batches conflict). Only the proxy knows where batches start and end, so this is the
 * place for anything that must be decided per batch.
 *
 * <h2>Bounds</h2>
 * A decorator declares, once, the most it adds to one batch: {@link #maxAddedCommands()} commands of
 * at most {@link #maxAddedBytes()} bytes together, each measured by {@link ClientProxy#bytesInBatch}.
 * The proxy reserves that room in <em>every</em> batch (so a batch it builds never breaks the
 * cluster's {@code maxCommandsPerBatch} or {@code maxBatchBytes}) and {@link SealingBatch#add} refuses
 * anything beyond it. Both must be constant for the decorator's life.
 *
 * <h2>Threads (concurrency contract)</h2>
 * <ul>
 *   <li>{@link #onSeal} is called on the proxy's sender thread ({@code psmr-proxy-<id>-sender}), once
 *       per new batch, in batch order ({@link SealingBatch#number()} 0, 1, 2, …), never concurrently
 *       with itself, and never for a retry (a retry resends the sealed bytes). It holds up every batch
 *       of the proxy while it runs: it must be short, must not block, and must not call the proxy
 *       ({@code submit} could wait for the very thread it runs on). An exception it throws is a
 *       defect: the proxy fails that batch's client commands and closes.</li>
 *   <li>{@link #onResult} and {@link #onFailure} are called for each added command, at most once
 *       between them, on the thread that completes it: a replica's or reply connector's thread
 *       (first reply), the proxy's timer thread (retries exhausted), or the thread closing the proxy.
 *       They may run concurrently with {@code onSeal} and with each other, and must not block. An
 *       exception they throw is logged and ignored.</li>
 * </ul>
 * One decorator serves one proxy: it may keep per-proxy state (a session, a sequence) without locks
 * on the sender's side.
 */
public interface BatchDecorator {

    /** A decorator that adds nothing and reserves no room. */
    BatchDecorator NONE = new BatchDecorator() {
        @Override
        public int maxAddedCommands() {
            return 0;
        }

        @Override
        public int maxAddedBytes() {
            return 0;
        }

        @Override
        public void onSeal(SealingBatch batch) {
        }

        @Override
        public String toString() {
            return "BatchDecorator.NONE";
        }
    };

    /** The most commands {@link #onSeal} adds to one batch; 0 or more, constant. */
    int maxAddedCommands();

    /** The most bytes the commands added to one batch take, by {@link ClientProxy#bytesInBatch}; 0 or more, constant. */
    int maxAddedBytes();

    /** Adds this decorator's commands, if any, to {@code batch}. Sender thread; see the class comment. */
    void onSeal(SealingBatch batch);

    /** The first reply's result for a command this decorator added. Any thread; must not block. */
    default void onResult(KvCommand added, KvResult result) {
    }

    /**
     * A command this decorator added got no answer: its retries ran out, the broadcast failed, or the
     * proxy closed (its outcome is then unknown). Any thread; must not block.
     */
    default void onFailure(KvCommand added, Throwable error) {
    }
}
