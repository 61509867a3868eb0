package io.psmr.proxy;

/**
 * The proxy proposed a batch {@code 1 + maxRetries} times and no replica answered the command
 * within the retry timeout each time. The command <em>may</em> have executed (exactly once: every
 * attempt carried the same client id and request sequence); its outcome is unknown.
 */
public final class ProxyTimeoutException extends KvRequestException {

    private static final long serialVersionUID = 1L;

    /** A timeout naming the batch and the attempts. */
    public ProxyTimeoutException(String message) {
        super(message);
    }
}
