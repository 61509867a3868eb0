package io.psmr.proxy;

/**
 * Under {@link ReplyTrust#matching MATCHING(f)}, the replicas' replies to a command disagree so that no
 * answer can reach {@code f + 1} matching replies any more: more than {@code f} replicas are faulty, or
 * correct replicas answered different deliveries of a retried batch differently (for instance OK to one
 * delivery and SESSION_EXPIRED to a later one). The message names each distinct answer and the replicas
 * that gave it. The command may or may not have executed; the proxy does not retry it, because more
 * replies from the same replicas cannot change their answers (each replica's first answer is kept).
 */
public final class ReplyMismatchException extends KvRequestException {

    private static final long serialVersionUID = 1L;

    /** An exception with a message naming the disagreement. */
    public ReplyMismatchException(String message) {
        super(message);
    }
}
