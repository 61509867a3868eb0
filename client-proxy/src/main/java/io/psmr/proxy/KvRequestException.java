package io.psmr.proxy;

/**
 * A request that got no {@link io.psmr.kvstore.KvResult}: the proxy refused it, gave up on it, or
 * closed. Its subclasses say which. Whether the command executed is stated by each subclass.
 */
public class KvRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception with a message naming the problem. */
    public KvRequestException(String message) {
        super(message);
    }

    /** An exception with a message and a cause. */
    public KvRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
