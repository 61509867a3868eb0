package io.psmr.kvstore;

import io.psmr.kvstore.checkpoint.CheckpointStore;
import java.util.Objects;

/**
 * How a {@link Replica} takes checkpoints: every {@code interval} delivered instances (instances
 * {@code interval}, {@code 2·interval}, …: fixed by the log, the same on every replica), into
 * {@code store}, telling {@code hook} what the ordering layer needs.
 *
 * @param interval         instances between checkpoints (at least 1)
 * @param store            where checkpoints are written and kept
 * @param hook             the ordering layer's part (see {@link Hook}); {@link Hook#NONE} if it needs none
 * @param maxRecordedBytes bound on the copy-on-write before-images one checkpoint may hold; beyond
 *                         it that checkpoint is abandoned (the next one tries again)
 * @param neverSkip        false: a checkpoint due while the previous one is still written is skipped
 *                         (checkpoints are local); true: delivery waits for the previous one instead, so
 *                         that every replica checkpoints every multiple of {@code interval} (PBFT certifies
 *                         each one: a skipped one would be a missing vote)
 */
public record Checkpointing(long interval, CheckpointStore store, Hook hook, long maxRecordedBytes, boolean neverSkip) {

    /** Default bound on before-images: 256 MiB. */
    public static final long DEFAULT_MAX_RECORDED_BYTES = 256L << 20;

    /** Checks the fields. */
    public Checkpointing {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(hook, "hook");
        if (interval < 1) {
            throw new IllegalArgumentException("checkpoint interval must be at least 1 instance, got " + interval);
        }
        if (maxRecordedBytes < 1) {
            throw new IllegalArgumentException("maxRecordedBytes must be at least 1, got " + maxRecordedBytes);
        }
    }

    /** Skipping a checkpoint due while the previous one is written ({@code neverSkip} false). */
    public Checkpointing(long interval, CheckpointStore store, Hook hook, long maxRecordedBytes) {
        this(interval, store, hook, maxRecordedBytes, false);
    }

    /** Every {@code interval} instances into {@code store}, with the default before-image bound. */
    public static Checkpointing every(long interval, CheckpointStore store, Hook hook) {
        return new Checkpointing(interval, store, hook, DEFAULT_MAX_RECORDED_BYTES);
    }

    /** The same, but delivery waits for the previous checkpoint instead of skipping one ({@code neverSkip}). */
    public Checkpointing neverSkipping() {
        return new Checkpointing(interval, store, hook, maxRecordedBytes, true);
    }

    /** The ordering layer's part in a checkpoint. */
    public interface Hook {

        /** For orderings that resume from the instance alone (the local sequencer, for one). */
        Hook NONE = new Hook() {
            @Override
            public byte[] orderingState(long instance) {
                return new byte[0];
            }

            @Override
            public void checkpointed(long instance) {
            }
        };

        /**
         * The ordering layer's resume state as of delivered instance {@code instance}, stored in the
         * checkpoint. Called on the delivery thread, while {@code instance} is the last delivered.
         */
        byte[] orderingState(long instance);

        /**
         * The checkpoint at {@code instance} is durable: the ordering layer may forget what comes
         * before it (Ring Paxos reports it to the acceptors, which may then trim). Called on the
         * snapshot's writer thread; must not block.
         */
        void checkpointed(long instance);
    }
}
