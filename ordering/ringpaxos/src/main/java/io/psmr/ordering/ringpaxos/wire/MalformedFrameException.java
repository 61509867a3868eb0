package io.psmr.ordering.ringpaxos.wire;

/**
 * A frame that is not a valid Ring Paxos message or hello: truncated, with trailing bytes, an
 * unknown version or type, a length beyond the configured limits, or an invalid field. The message
 * names the problem. A transport that receives one closes the connection it came on.
 */
public final class MalformedFrameException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A malformed-frame failure with a message naming the problem. */
    public MalformedFrameException(String message) {
        super(message);
    }
}
