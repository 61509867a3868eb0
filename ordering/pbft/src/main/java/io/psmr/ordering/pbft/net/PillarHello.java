package io.psmr.ordering.pbft.net;

import java.nio.ByteBuffer;

/**
 * The first frame on a pillar connection: the connecting side names itself (replica {@code from}, pillar
 * {@code pillar}) and the replica it means to reach ({@code to}). Wire form, {@value #BYTES} bytes big-endian: the
 * magic {@code "PBFT"} ({@value #MAGIC}), {@code from}, {@code to}, {@code pillar}. The hello is not authenticated:
 * it only routes; every envelope after it still carries a MAC that the receiving pillar core verifies.
 *
 * @param from   the connecting replica
 * @param to     the replica it connects to
 * @param pillar the pillar whose private connection this is (the same at both ends)
 */
public record PillarHello(int from, int to, int pillar) {

    /** {@code "PBFT"} in ASCII: tells a PBFT pillar connection from any other traffic. */
    public static final int MAGIC = 0x50424654;
    /** Bytes of an encoded hello. */
    public static final int BYTES = 16;

    /** The wire form. */
    public byte[] encode() {
        return ByteBuffer.allocate(BYTES).putInt(MAGIC).putInt(from).putInt(to).putInt(pillar).array();
    }

    /**
     * The hello in {@code frame}.
     *
     * @throws IllegalArgumentException naming the problem, if it is not {@value #BYTES} bytes or lacks the magic
     */
    public static PillarHello decode(byte[] frame) {
        if (frame.length != BYTES) {
            throw new IllegalArgumentException("a hello has " + BYTES + " bytes, got " + frame.length);
        }
        ByteBuffer in = ByteBuffer.wrap(frame);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException("a hello starts with 0x" + Integer.toHexString(MAGIC) + ", got 0x"
                    + Integer.toHexString(magic));
        }
        return new PillarHello(in.getInt(), in.getInt(), in.getInt());
    }
}
