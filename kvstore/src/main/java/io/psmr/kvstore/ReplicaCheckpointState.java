package io.psmr.kvstore;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Objects;

/**
 * What a replica's checkpoint holds besides the store: the instance, the session table, the
 * capacity guard's state, and the ordering layer's resume state (opaque here; Ring Paxos puts its learner's position and duplicate
 * filter there). This is the checkpoint's {@code state.bin}; the store is its Chronicle Map file.
 *
 * <p>Encoding: version (1 byte, 1), instance (8), then three parts, each a length (4) and bytes: the
 * session table as {@link SessionTable#writeTo} wrote it, the capacity guard as
 * {@link CapacityGuard#writeTo} wrote it, and the ordering state. Big-endian.
 * Deterministic: equal states give equal bytes, so replicas that checkpoint the same instance write
 * the same file (what a Byzantine ordering needs to certify it).
 *
 * @param instance      the delivered instance the checkpoint is at
 * @param sessions      the session table's bytes
 * @param capacity      the capacity guard's bytes
 * @param orderingState the ordering layer's resume state at {@code instance}; empty if it needs none
 */
public record ReplicaCheckpointState(long instance, byte[] sessions, byte[] capacity, byte[] orderingState) {

    private static final int VERSION = 1;
    private static final int MAX_PART_BYTES = 1 << 30;

    /** Checks the fields. */
    public ReplicaCheckpointState {
        Objects.requireNonNull(sessions, "sessions");
        Objects.requireNonNull(capacity, "capacity");
        Objects.requireNonNull(orderingState, "orderingState");
        if (instance < 0) {
            throw new IllegalArgumentException("a checkpoint's instance cannot be negative, got " + instance);
        }
    }

    /** The bytes of {@code state.bin}. */
    public byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(25 + sessions.length + capacity.length + orderingState.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(instance);
            out.writeInt(sessions.length);
            out.write(sessions);
            out.writeInt(capacity.length);
            out.write(capacity);
            out.writeInt(orderingState.length);
            out.write(orderingState);
        } catch (IOException e) {
            throw new IllegalStateException("cannot happen: writing to memory", e);
        }
        return bytes.toByteArray();
    }

    /**
     * Reads {@link #toBytes()}'s output.
     *
     * @throws IOException naming what is wrong: an unknown version, a truncated part, trailing bytes
     */
    public static ReplicaCheckpointState fromBytes(byte[] b) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
        try {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new IOException("replica checkpoint state version " + version + " is not supported (expected "
                        + VERSION + ")");
            }
            long instance = in.readLong();
            byte[] sessions = part(in, "session table");
            byte[] capacity = part(in, "capacity state");
            byte[] ordering = part(in, "ordering state");
            if (in.available() > 0) {
                throw new IOException("replica checkpoint state has " + in.available() + " trailing bytes");
            }
            return new ReplicaCheckpointState(instance, sessions, capacity, ordering);
        } catch (java.io.EOFException e) {
            throw new IOException("replica checkpoint state is truncated (" + b.length + " bytes)", e);
        } catch (IllegalArgumentException e) {
            throw new IOException("replica checkpoint state is malformed: " + e.getMessage(), e);
        }
    }

    private static byte[] part(DataInputStream in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_PART_BYTES || n > in.available()) {
            throw new IOException("replica checkpoint state claims a " + what + " of " + n + " bytes, but "
                    + in.available() + " remain");
        }
        byte[] part = new byte[n];
        in.readFully(part);
        return part;
    }
}
