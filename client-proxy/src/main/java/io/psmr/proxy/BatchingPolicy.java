package io.psmr.proxy;

/**
 * When a {@link ClientProxy} closes a new batch and which queued commands it takes (see "Batching policy" there).
 *
 * <ul>
 *   <li>A new batch may close only while fewer than {@code window} batches are outstanding and at least one
 *       command is queued.</li>
 *   <li>With a linger above zero it then closes once {@code maxBatchCommands} commands are queued, or once the oldest
 *       queued command has waited {@code linger}; until then the sender waits. With linger zero it closes at once.</li>
 *   <li>It takes queued commands in arrival order, at most {@code maxBatchCommands} of them, while their bytes fit in
 *       the batch's byte budget; the first command is always taken (a command that fits in no batch is never queued,
 *       see {@link #fitsInABatch}). It stops at the first command that does not fit: none is skipped.</li>
 * </ul>
 *
 * <p>Pure: time comes in as {@link System#nanoTime()} values, so the decisions are tested without clocks. Immutable
 * and thread-safe; the proxy asks it under its lock (the sender thread) and in {@code submit} (any thread).
 */
final class BatchingPolicy {

    /** From {@link #closeDelay}: a batch closes now. */
    static final long NOW = 0L;
    /** From {@link #closeDelay}: no batch can close until a command is queued or a window slot frees. */
    static final long NOT_READY = -1L;

    private final int window;
    private final int maxBatchCommands;
    private final int byteBudget;
    private final long lingerNanos;

    /**
     * @param window           most batches outstanding at once; at least 1
     * @param maxBatchCommands most client commands in a batch; at least 1
     * @param byteBudget       bytes a batch has for its client commands (its limit less its fixed part); at least 1
     * @param lingerNanos      how long the oldest queued command may wait for a fuller batch; 0 or more
     * @throws IllegalArgumentException naming the value out of range
     */
    BatchingPolicy(int window, int maxBatchCommands, int byteBudget, long lingerNanos) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, got " + window);
        }
        if (maxBatchCommands < 1) {
            throw new IllegalArgumentException("maxBatchCommands must be at least 1, got " + maxBatchCommands);
        }
        if (byteBudget < 1) {
            throw new IllegalArgumentException("byteBudget must be at least 1, got " + byteBudget);
        }
        if (lingerNanos < 0) {
            throw new IllegalArgumentException("lingerNanos must not be negative, got " + lingerNanos);
        }
        this.window = window;
        this.maxBatchCommands = maxBatchCommands;
        this.byteBudget = byteBudget;
        this.lingerNanos = lingerNanos;
    }

    /** The bytes a batch has for its client commands. */
    int byteBudget() {
        return byteBudget;
    }

    /** Whether a command of {@code cost} bytes fits in a batch at all (alone); one that does not is never queued. */
    boolean fitsInABatch(int cost) {
        return cost <= byteBudget;
    }

    /**
     * How long to wait before closing a new batch.
     *
     * @param outstandingBatches batches proposed and not fully answered
     * @param queued             commands waiting to be batched
     * @param oldestEnqueuedNanos when the oldest queued command was queued ({@code System.nanoTime()}); ignored if
     *                           none is queued
     * @param nowNanos           the time now ({@code System.nanoTime()})
     * @return {@link #NOW}; {@link #NOT_READY} (wait for a command or a free slot); or the nanoseconds (above zero)
     *         until the oldest command has lingered long enough, unless the queue fills first
     */
    long closeDelay(int outstandingBatches, int queued, long oldestEnqueuedNanos, long nowNanos) {
        if (outstandingBatches >= window || queued == 0) {
            return NOT_READY;
        }
        if (lingerNanos > 0 && queued < maxBatchCommands) {
            // Differences of nanoTime values, never comparisons, so a wrap of the clock does no harm.
            long wait = oldestEnqueuedNanos + lingerNanos - nowNanos;
            if (wait > 0) {
                return wait;
            }
        }
        return NOW;
    }

    /**
     * Whether the batch being filled takes the next queued command.
     *
     * @param taken      commands taken so far
     * @param bytesTaken their bytes
     * @param cost       the next command's bytes
     */
    boolean takes(int taken, long bytesTaken, int cost) {
        return taken < maxBatchCommands && (taken == 0 || cost <= byteBudget - bytesTaken);
    }
}
