package io.psmr.ordering.pbft;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.zip.CRC32C;

/**
 * A cheap, keyless stand-in for simulation: the "MAC" is a CRC32C over the endpoints and bytes.
 * It catches corruption and misrouting, not forgery; never use it outside tests and simulations.
 */
public final class ChecksumAuthenticator implements Authenticator {

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

    private static byte[] crc(long domain, long a, long b, byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(24).putLong(domain).putLong(a).putLong(b).array());
        crc.update(bytes);
        return ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
    }
}
