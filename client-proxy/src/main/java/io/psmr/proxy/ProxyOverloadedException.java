package io.psmr.proxy;

/**
 * A request refused because a bounded queue was full under {@link OverflowPolicy#REJECT}: the
 * proxy's command queue or the client's outstanding-request bound. The command was never proposed
 * and will not execute; it is safe to submit again later.
 */
public final class ProxyOverloadedException extends KvRequestException {

    private static final long serialVersionUID = 1L;

    /** An overload naming the bound that was hit. */
    public ProxyOverloadedException(String message) {
        super(message);
    }
}
