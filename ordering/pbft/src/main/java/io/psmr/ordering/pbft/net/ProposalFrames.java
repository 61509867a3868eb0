package io.psmr.ordering.pbft.net;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The frames of a PBFT replica's proposal port ({@link PbftProposalServer}, {@link PbftProposerClient}): each is one
 * {@link io.psmr.ordering.transport.LengthFraming} body, big-endian.
 * <ul>
 *   <li>client → replica, first: {@code HELLO} = magic {@code "PBPR"} (4), version 1 (1);</li>
 *   <li>client → replica: {@code PROPOSE} = type 1 (1), correlation id (8), the value (the rest);</li>
 *   <li>replica → client: {@code ORDERED} = type 2 (1), correlation id (8), instance (8): the replica delivered it;</li>
 *   <li>replica → client: {@code REFUSED} = type 3 (1), correlation id (8), {@link Refused} code (1), UTF-8 reason
 *       (the rest, at most {@value #MAX_REASON_BYTES} bytes).</li>
 * </ul>
 * Decoding is strict: anything else is an {@link IllegalArgumentException} naming the problem. Stateless.
 */
final class ProposalFrames {

    static final int MAGIC = 0x50425052; // "PBPR"
    static final byte VERSION = 1;
    static final byte PROPOSE = 1;
    static final byte ORDERED = 2;
    static final byte REFUSED = 3;
    static final int HEADER_BYTES = 9;
    static final int MAX_REASON_BYTES = 1024;

    /** Why a replica answered REFUSED, and what it means for the value. */
    enum Refused {
        /** Not ordered: the replica is overloaded now (its broadcast's or this connection's bound). */
        OVERLOADED,
        /** Not ordered, for another reason (too large, a refused request, ...): try another replica. */
        NOT_ORDERED,
        /** The replica closed while the value was in flight: it may still be ordered by the others. */
        OUTCOME_UNKNOWN
    }

    private ProposalFrames() {
    }

    static byte[] hello() {
        return ByteBuffer.allocate(5).putInt(MAGIC).put(VERSION).array();
    }

    /** @throws IllegalArgumentException if {@code frame} is not this version's hello */
    static void checkHello(byte[] frame) {
        if (frame.length != 5) {
            throw new IllegalArgumentException("a hello of " + frame.length + " bytes, not 5");
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException("not a PBFT proposal hello (magic 0x" + Integer.toHexString(magic) + ")");
        }
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalArgumentException("proposal protocol version " + version + ", this replica speaks " + VERSION);
        }
    }

    static byte[] propose(long correlation, byte[] value) {
        return ByteBuffer.allocate(HEADER_BYTES + value.length).put(PROPOSE).putLong(correlation).put(value).array();
    }

    static byte[] ordered(long correlation, long instance) {
        return ByteBuffer.allocate(HEADER_BYTES + 8).put(ORDERED).putLong(correlation).putLong(instance).array();
    }

    static byte[] refused(long correlation, Refused code, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int len = Math.min(text.length, MAX_REASON_BYTES);
        return ByteBuffer.allocate(HEADER_BYTES + 1 + len).put(REFUSED).putLong(correlation).put((byte) code.ordinal())
                .put(text, 0, len).array();
    }

    /** The type byte of a frame. @throws IllegalArgumentException if shorter than the header */
    static byte type(byte[] frame) {
        if (frame.length < HEADER_BYTES) {
            throw new IllegalArgumentException("a frame of " + frame.length + " bytes, shorter than the " + HEADER_BYTES
                    + "-byte header");
        }
        return frame[0];
    }

    static long correlation(byte[] frame) {
        return ByteBuffer.wrap(frame, 1, 8).getLong();
    }

    static byte[] value(byte[] frame) {
        byte[] v = new byte[frame.length - HEADER_BYTES];
        System.arraycopy(frame, HEADER_BYTES, v, 0, v.length);
        return v;
    }

    /** The instance of an ORDERED frame. @throws IllegalArgumentException if it is not 17 bytes */
    static long instance(byte[] frame) {
        if (frame.length != HEADER_BYTES + 8) {
            throw new IllegalArgumentException("an ORDERED frame of " + frame.length + " bytes, not " + (HEADER_BYTES + 8));
        }
        return ByteBuffer.wrap(frame, HEADER_BYTES, 8).getLong();
    }

    /** The code of a REFUSED frame. @throws IllegalArgumentException if there is none or it is unknown */
    static Refused refusedCode(byte[] frame) {
        if (frame.length < HEADER_BYTES + 1 || frame.length > HEADER_BYTES + 1 + MAX_REASON_BYTES) {
            throw new IllegalArgumentException("a REFUSED frame of " + frame.length + " bytes");
        }
        int code = frame[HEADER_BYTES];
        if (code < 0 || code >= Refused.values().length) {
            throw new IllegalArgumentException("unknown refusal code " + code);
        }
        return Refused.values()[code];
    }

    static String refusedReason(byte[] frame) {
        return new String(frame, HEADER_BYTES + 1, frame.length - HEADER_BYTES - 1, StandardCharsets.UTF_8);
    }
}
