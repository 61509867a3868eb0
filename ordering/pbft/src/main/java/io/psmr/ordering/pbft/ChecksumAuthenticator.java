package io.psmr.ordering.pbft;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A cheap stand-in for simulation. Its "MAC" is a keyless CRC32C over the endpoints and bytes: it
 * catches corruption and misrouting, not forgery (adversary code in tests only ever MACs as itself).
 * Its "signature" is a truncated SHA-256 under a per-replica secret that only a signer for that
 * replica computes, and that every instance verifies (an oracle that knows all secrets): within a
 * simulation it cannot be forged by code that holds only {@link #signingOnlyFor one replica's}
 * signer, and it costs microseconds where Ed25519 costs tens of them. Never use it outside tests and
 * simulations.
 */
public final class ChecksumAuthenticator implements Authenticator {

    private static final int ANY = -1;
    private final int signer;

    /** An instance that signs as any replica (the correct replicas of a simulation share one). */
    public ChecksumAuthenticator() {
        this(ANY);
    }

    private ChecksumAuthenticator(int signer) {
        this.signer = signer;
    }

    /** An instance that signs only as {@code replica} (what a Byzantine replica of a simulation gets). */
    public static ChecksumAuthenticator signingOnlyFor(int replica) {
        if (replica < 0) {
            throw new IllegalArgumentException("replica " + replica + " is negative");
        }
        return new ChecksumAuthenticator(replica);
    }

    @Override
    public byte[] mac(int from, int to, byte[] bytes) {
        return crc(0x5250L, from, to, bytes);
    }

    @Override
    public boolean verify(int from, int to, byte[] bytes, byte[] mac) {
        return MessageDigest.isEqual(mac(from, to, bytes), mac);
    }

    @Override
    public byte[] clientMac(long client, int replica, byte[] bytes) {
        return crc(0x434cL, client, replica, bytes);
    }

    @Override
    public boolean verifyClient(long client, int replica, byte[] bytes, byte[] mac) {
        return MessageDigest.isEqual(clientMac(client, replica, bytes), mac);
    }

    @Override
    public byte[] sign(int replica, byte[] bytes) {
        if (signer != ANY && signer != replica) {
            throw new IllegalStateException("no signing key for replica " + replica + " (this signer holds replica "
                    + signer + "'s only)");
        }
        return signature(replica, bytes);
    }

    @Override
    public boolean verifySignature(int replica, byte[] bytes, byte[] signature) {
        return replica >= 0 && MessageDigest.isEqual(signature(replica, bytes), signature);
    }

    private static byte[] signature(int replica, byte[] bytes) {
        // The replica's "secret" is a constant per replica: only the simulation's rules keep it.
        byte[] input = ByteBuffer.allocate(12 + bytes.length).putLong(0x5349474e53494dL).putInt(replica).put(bytes).array();
        return Arrays.copyOf(PbftDigests.sha256(input), 16);
    }

    private static byte[] crc(long domain, long a, long b, byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(24).putLong(domain).putLong(a).putLong(b).array());
        crc.update(bytes);
        return ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
    }
}
