package io.psmr.proxy;

/**
 * The proxy (or its atomic broadcast) closed before the command was answered. A command still
 * queued was never proposed; a command already proposed may have executed (outcome unknown).
 */
public final class ProxyClosedException extends KvRequestException {

    private static final long serialVersionUID = 1L;

    /** A closure with a message saying what was cut short. */
    public ProxyClosedException(String message) {
        super(message);
    }

    /** A closure with a cause (for example the broadcast's {@code BroadcastClosedException}). */
    public ProxyClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
