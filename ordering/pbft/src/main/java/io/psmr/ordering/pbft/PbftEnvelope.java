package io.psmr.ordering.pbft;

/**
 * A replica-to-replica message with its routing and its MAC. The MAC is
 * {@code auth.mac(from, to, PbftCodec.signedBytes(from, to, pillar, message))}.
 *
 * @param from    the sending replica
 * @param to      the receiving replica
 * @param pillar  the pillar it belongs to (each pillar has private connections, COP §4.2.3)
 * @param message the message
 * @param mac     the MAC over the canonical encoding of the other fields
 */
public record PbftEnvelope(int from, int to, int pillar, PbftMessage message, byte[] mac) {
    /** Copies the MAC. */
    public PbftEnvelope {
        if (message == null || mac == null) {
            throw new IllegalArgumentException("an envelope needs a message and a mac");
        }
        mac = mac.clone();
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    /** Seals {@code message} for {@code to}, computing the MAC. */
    public static PbftEnvelope seal(int from, int to, int pillar, PbftMessage message, Authenticator auth) {
        return new PbftEnvelope(from, to, pillar, message, auth.mac(from, to, PbftCodec.signedBytes(from, to, pillar, message)));
    }

    /** Whether the MAC verifies. */
    public boolean verify(Authenticator auth) {
        return auth.verify(from, to, PbftCodec.signedBytes(from, to, pillar, message), mac);
    }
}
