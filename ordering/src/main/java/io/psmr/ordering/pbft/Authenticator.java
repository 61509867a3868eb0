package io.psmr.ordering.pbft;

/**
 * Message authentication between replicas, and from clients to replicas. Implementations are
 * deterministic and thread-safe (pillars of one replica share one).
 */
public interface Authenticator {

    /** The MAC replica {@code from} attaches to {@code bytes} sent to replica {@code to}. */
    byte[] mac(int from, int to, byte[] bytes);

    /** Whether {@code mac} is what {@link #mac} gives for these arguments. */
    boolean verify(int from, int to, byte[] bytes, byte[] mac);

    /** The MAC client {@code client} attaches for replica {@code replica}. */
    byte[] clientMac(long client, int replica, byte[] bytes);

    /** Whether {@code mac} is what {@link #clientMac} gives for these arguments. */
    boolean verifyClient(long client, int replica, byte[] bytes, byte[] mac);
}
