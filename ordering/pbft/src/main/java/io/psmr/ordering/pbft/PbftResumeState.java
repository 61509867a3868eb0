package io.psmr.ordering.pbft;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

/**
 * Where a replica's execution stage resumes after an application checkpoint: the ordering part of the checkpoint's
 * {@code state.bin}. Taken right after the stage released the sequence number {@code nextSeq - 1} that delivered the
 * checkpoint's instance {@code nextInstance - 1}; a function of the released sequence only, so every correct replica
 * writes the same bytes for the same checkpoint (the checkpoint digest 2f+1 replicas certify covers them).
 *
 * <p>Encoding (big-endian): version (1 byte, 1), nextSeq (8), nextInstance (8), chain digest (32), then the duplicate
 * table as {@link RequestDeduplicator#writeTo} writes it.
 *
 * @param nextSeq      the first PBFT sequence number not yet released (the checkpoint's sequence number + 1)
 * @param nextInstance the delivered instance the next delivered sequence number gets
 * @param chainDigest  the execution stage's hash chain after {@code nextSeq - 1} (32 bytes)
 * @param dedupTable   the exactly-once filter's bytes ({@link RequestDeduplicator#writeTo})
 */
public record PbftResumeState(long nextSeq, long nextInstance, byte[] chainDigest, byte[] dedupTable) {

    private static final int VERSION = 1;

    /** Checks the fields and copies the arrays. */
    public PbftResumeState {
        if (nextSeq < 1 || nextInstance < 1) {
            throw new IllegalArgumentException("a resume state needs nextSeq and nextInstance of at least 1, got "
                    + nextSeq + " and " + nextInstance);
        }
        if (chainDigest == null || chainDigest.length != 32) {
            throw new IllegalArgumentException("the chain digest must be 32 bytes, got "
                    + (chainDigest == null ? "none" : chainDigest.length + " bytes"));
        }
        chainDigest = chainDigest.clone();
        dedupTable = dedupTable.clone();
    }

    /** The sequence number the checkpoint is at (certified there): {@code nextSeq - 1}. */
    public long seq() {
        return nextSeq - 1;
    }

    /** The canonical bytes. */
    public byte[] toBytes() {
        ByteArrayOutputStream b = new ByteArrayOutputStream(49 + dedupTable.length);
        try (DataOutputStream out = new DataOutputStream(b)) {
            out.writeByte(VERSION);
            out.writeLong(nextSeq);
            out.writeLong(nextInstance);
            out.write(chainDigest);
            out.write(dedupTable);
        } catch (IOException e) {
            throw new IllegalStateException("cannot happen: writing to memory", e);
        }
        return b.toByteArray();
    }

    /**
     * Reads {@link #toBytes()}'s output.
     *
     * @throws IOException naming what is wrong: an unknown version, truncation, a bad duplicate table, trailing bytes
     */
    public static PbftResumeState fromBytes(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        try {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new IOException("PBFT resume state version " + version + " is not supported (expected " + VERSION + ")");
            }
            long nextSeq = in.readLong();
            long nextInstance = in.readLong();
            byte[] digest = new byte[32];
            in.readFully(digest);
            int tableStart = 49;
            RequestDeduplicator.readFrom(in); // validates
            if (in.available() > 0) {
                throw new IOException("PBFT resume state has " + in.available() + " trailing bytes");
            }
            return new PbftResumeState(nextSeq, nextInstance, digest, Arrays.copyOfRange(bytes, tableStart, bytes.length));
        } catch (EOFException e) {
            throw new IOException("PBFT resume state is truncated (" + bytes.length + " bytes)", e);
        } catch (IllegalArgumentException e) {
            throw new IOException("PBFT resume state is malformed: " + e.getMessage(), e);
        }
    }

    /** A new duplicate table holding {@link #dedupTable()}. */
    public RequestDeduplicator dedup() {
        try {
            return RequestDeduplicator.readFrom(new DataInputStream(new ByteArrayInputStream(dedupTable)));
        } catch (IOException e) {
            throw new IllegalStateException("the duplicate table was checked when read: " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] chainDigest() {
        return chainDigest.clone();
    }

    @Override
    public byte[] dedupTable() {
        return dedupTable.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PbftResumeState r && r.nextSeq == nextSeq && r.nextInstance == nextInstance
                && Arrays.equals(r.chainDigest, chainDigest) && Arrays.equals(r.dedupTable, dedupTable);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(nextSeq) * 31 + Arrays.hashCode(chainDigest);
    }

    @Override
    public String toString() {
        return "PbftResumeState[nextSeq " + nextSeq + ", nextInstance " + nextInstance + ", table "
                + dedupTable.length + " bytes]";
    }
}
