package io.psmr.proxy;

/** What a {@link ClientProxy} or {@link KvClient} does when a bounded queue is full. */
public enum OverflowPolicy {
    /** The submitting thread waits for room (interruptibly). */
    BLOCK,
    /** The request fails at once with {@link ProxyOverloadedException}, naming the bound. */
    REJECT
}
