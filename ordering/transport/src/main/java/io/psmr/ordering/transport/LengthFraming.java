package io.psmr.ordering.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;

/**
 * The framing of every psmr TCP connection: a 4-byte big-endian body length, then the body. A length above the
 * receiver's limit is refused as soon as the prefix is read, before the body arrives.
 *
 * <p>Stateless; the handlers it makes belong to one channel each.
 */
public final class LengthFraming {

    /** Bytes of the length prefix. */
    public static final int PREFIX_BYTES = 4;

    private LengthFraming() {
    }

    /**
     * A decoder for one channel that emits each frame's body as a {@link ByteBuf} and fails fast, with a
     * {@link TooLongFrameException}, on a prefix announcing more than {@code maxFrameBytes}.
     */
    public static LengthFieldBasedFrameDecoder decoder(int maxFrameBytes) {
        if (maxFrameBytes < 1) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 1, got " + maxFrameBytes);
        }
        return new LengthFieldBasedFrameDecoder(PREFIX_BYTES + maxFrameBytes, 0, PREFIX_BYTES, 0, PREFIX_BYTES, true);
    }

    /** An encoder that puts the length prefix before each {@link ByteBuf} written. */
    public static LengthFieldPrepender prepender() {
        return new LengthFieldPrepender(PREFIX_BYTES);
    }

    /** Copies a decoded frame's body out and releases the frame. */
    public static byte[] take(Object frame) {
        try {
            return ByteBufUtil.getBytes((ByteBuf) frame);
        } finally {
            ReferenceCountUtil.release(frame);
        }
    }

    /**
     * Why an exception raised in a framed channel's pipeline is the peer's fault, for a refusal; or {@code null}
     * when the peer only went away (an {@link IOException}: reset, broken pipe), which is not bad input.
     *
     * @param maxFrameBytes the limit the decoder enforces, named in the reason for an oversized frame
     */
    public static String refusalReason(Throwable cause, int maxFrameBytes) {
        if (cause instanceof TooLongFrameException) {
            return "a frame longer than the limit of " + maxFrameBytes + " bytes: " + cause.getMessage();
        }
        if (cause instanceof DecoderException) {
            return "bad framing: " + cause.getMessage();
        }
        if (cause instanceof IOException) {
            return null;
        }
        return cause.toString();
    }
}
