package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The application's checkpoints as a replica's PBFT checkpoints (docs/pbft.md, state transfer): instead of the
 * execution stage's hash chain every K sequence numbers, the replica certifies the application's deterministic
 * checkpoint at delivered instance {@code n} at the sequence number {@code s(n)} that delivered it, with the digest
 * {@link #digest D = SHA-256(store digest ‖ state.bin)}. The {@link ExecutionAgent} drives it; the application (the
 * store) implements it.
 *
 * <p>Concurrency: every method is called on the execution agent's thread and must not block.
 */
public interface ApplicationCheckpoints {

    /** A durable application checkpoint, ready to be certified: CHECKPOINT(seq, digest). */
    record Durable(long seq, byte[] digest) {
        /** Copies the digest. */
        public Durable {
            digest = digest.clone();
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }
    }

    /** Delivered instances between application checkpoints (instances {@code interval, 2·interval, …}). */
    long interval();

    /**
     * The stage just released the sequence number that delivered {@code instance}, a checkpoint instance; this is the
     * ordering part of that checkpoint's state ({@link PbftResumeState#toBytes()}). Kept until the application's
     * checkpoint asks for it.
     */
    void resumeState(long instance, PbftResumeState state);

    /** The next application checkpoint that became durable since the last call, or null. */
    Durable pollDurable();

    /**
     * A checkpoint became stable (2f+1 signed CHECKPOINTs) above what this replica executed, and the log below it is
     * gone: only state transfer brings the replica back. Called again for every newer stable checkpoint while the
     * replica waits (the execution stage releases nothing meanwhile).
     */
    void transferNeeded(StableCheckpoint stable);

    /**
     * The PBFT checkpoint digest of an application checkpoint: SHA-256 of the store digest (8 bytes, big-endian)
     * followed by the checkpoint's {@code state.bin} bytes (which hold the {@link PbftResumeState}).
     */
    static byte[] digest(long storeDigest, byte[] stateBytes) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(ByteBuffer.allocate(8).putLong(storeDigest).array());
            sha.update(stateBytes);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }
}
