package io.psmr.ordering.pbft;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * The wire frame of a {@link PbftEnvelope} between replicas: {@code from, to, pillar} (4 bytes each, big-endian),
 * the message's canonical encoding ({@link PbftCodec#encode}) as a 4-byte length and its bytes, then the MAC as a
 * 4-byte length and its bytes. The MAC travels as sealed by the sender and is verified by the receiving pillar core,
 * over {@link PbftCodec#signedBytes}. Decoding is strict: it refuses short frames, bad lengths and trailing bytes
 * with an {@link IllegalArgumentException} naming the problem. Stateless and thread-safe.
 */
public final class EnvelopeCodec {

    /** The largest MAC accepted (an HMAC-SHA256 has 32 bytes). */
    public static final int MAX_MAC_BYTES = 64;

    private EnvelopeCodec() {
    }

    /** The frame of {@code envelope}. */
    public static byte[] encode(PbftEnvelope envelope) {
        byte[] body = PbftCodec.encode(envelope.message());
        byte[] mac = envelope.mac();
        return ByteBuffer.allocate(20 + body.length + mac.length).putInt(envelope.from()).putInt(envelope.to())
                .putInt(envelope.pillar()).putInt(body.length).put(body).putInt(mac.length).put(mac).array();
    }

    /**
     * The envelope in {@code frame}.
     *
     * @throws IllegalArgumentException if the frame is malformed
     */
    public static PbftEnvelope decode(byte[] frame) {
        ByteBuffer in = ByteBuffer.wrap(frame);
        try {
            int from = in.getInt();
            int to = in.getInt();
            int pillar = in.getInt();
            byte[] body = bytes(in, "message", PbftCodec.MAX_BYTES);
            byte[] mac = bytes(in, "mac", MAX_MAC_BYTES);
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("malformed PBFT frame: " + in.remaining() + " trailing bytes");
            }
            return new PbftEnvelope(from, to, pillar, PbftCodec.decode(body), mac);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("malformed PBFT frame: truncated at byte " + in.position() + " of "
                    + frame.length);
        }
    }

    private static byte[] bytes(ByteBuffer in, String what, int max) {
        int n = in.getInt();
        if (n < 0 || n > max || n > in.remaining()) {
            throw new IllegalArgumentException("malformed PBFT frame: " + what + " length " + n + " (at most " + max
                    + ", " + in.remaining() + " bytes left)");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }
}
