package io.psmr.kvstore.net;

import java.nio.ByteBuffer;

/**
 * The handshake of a reply connection, shared by {@link ReplyServer} (replica side) and the proxy's
 * connector. Every frame on a reply connection is a 4-byte big-endian body length and the body.
 *
 * <ol>
 *   <li>The proxy connects and sends one <b>hello</b> frame: body {@value #HANDSHAKE_BYTES} bytes,
 *       the magic {@code "PSRP"} (0x50 0x53 0x52 0x50), the protocol version ({@value #VERSION}) and
 *       its proxy id (i64, big-endian). It never sends anything else.</li>
 *   <li>The replica answers with one <b>welcome</b> frame of the same layout, echoing the proxy id:
 *       from then on, every reply for that proxy goes to this connection.</li>
 *   <li>Every later frame from the replica is one reply, {@link io.psmr.kvstore.KvCodec#encodeReply}.</li>
 * </ol>
 *
 * <p>Stateless and thread-safe.
 */
public final class ReplyProtocol {

    /** "PSRP": psmr replies. */
    public static final int MAGIC = 0x50535250;
    /** The version of this handshake and framing. */
    public static final byte VERSION = 1;
    /** The body length of a hello and of a welcome: magic, version, proxy id. */
    public static final int HANDSHAKE_BYTES = 4 + 1 + 8;
    /** The length prefix of every frame. */
    public static final int LENGTH_PREFIX_BYTES = 4;

    private ReplyProtocol() {
    }

    /** A hello or welcome body for {@code proxyId} (without its length prefix). */
    public static byte[] encodeHandshake(long proxyId) {
        return ByteBuffer.allocate(HANDSHAKE_BYTES).putInt(MAGIC).put(VERSION).putLong(proxyId).array();
    }

    /**
     * Reads a hello or welcome body.
     *
     * @return the proxy id it carries
     * @throws IllegalArgumentException naming the problem: wrong length, magic or version
     */
    public static long decodeHandshake(byte[] body) {
        if (body.length != HANDSHAKE_BYTES) {
            throw new IllegalArgumentException("a handshake has " + HANDSHAKE_BYTES + " bytes, this frame has " + body.length);
        }
        ByteBuffer in = ByteBuffer.wrap(body);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException(String.format("bad magic 0x%08x, expected 0x%08x (\"PSRP\")", magic, MAGIC));
        }
        byte version = in.get();
        if (version != VERSION) {
            throw new IllegalArgumentException("reply protocol version " + (version & 0xff) + " is not supported; this build speaks "
                    + VERSION);
        }
        return in.getLong();
    }
}
