package io.psmr.ordering.pbft;

/**
 * How PBFT messages are authenticated. Two mechanisms, as in Castro's PBFT:
 * <ul>
 * <li>MACs on the hot path: pairwise between replicas (one per envelope), and from clients to
 *     replicas (one per replica in a request). A MAC convinces only its addressee.</li>
 * <li>Replica signatures off the hot path: CHECKPOINT and VIEW-CHANGE messages are signed by their
 *     sender, so they stay verifiable by anyone when they travel inside other messages (stable
 *     checkpoint proofs, VIEW-CHANGEs in a NEW-VIEW). An instance can sign only as the replica(s)
 *     whose private key it holds.</li>
 * </ul>
 * Implementations are deterministic and thread-safe (pillars of one replica share one).
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

    /**
     * Replica {@code replica}'s signature over {@code bytes}.
     *
     * @throws IllegalStateException if this instance does not hold {@code replica}'s private key
     */
    byte[] sign(int replica, byte[] bytes);

    /** Whether {@code signature} is replica {@code replica}'s signature over {@code bytes} (false for unknown replicas). */
    boolean verifySignature(int replica, byte[] bytes, byte[] signature);
}
