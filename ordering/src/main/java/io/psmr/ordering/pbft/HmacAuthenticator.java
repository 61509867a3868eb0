package io.psmr.ordering.pbft;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under {@link PbftKeys}. A MAC for an unknown peer or client verifies never. Thread-safe:
 * each call uses its own {@link Mac}.
 */
public final class HmacAuthenticator implements Authenticator {

    private static final byte[] NONE = new byte[0];
    private final PbftKeys keys;

    /** Authenticates with {@code keys}. */
    public HmacAuthenticator(PbftKeys keys) {
        this.keys = keys;
    }

    @Override
    public byte[] mac(int from, int to, byte[] bytes) {
        byte[] key = keys.pair(from, to);
        return key == null ? NONE : hmac(key, bytes);
    }

    @Override
    public boolean verify(int from, int to, byte[] bytes, byte[] mac) {
        byte[] key = keys.pair(from, to);
        return key != null && MessageDigest.isEqual(hmac(key, bytes), mac);
    }

    @Override
    public byte[] clientMac(long client, int replica, byte[] bytes) {
        byte[] key = keys.client(client, replica);
        return key == null ? NONE : hmac(key, bytes);
    }

    @Override
    public boolean verifyClient(long client, int replica, byte[] bytes, byte[] mac) {
        byte[] key = keys.client(client, replica);
        return key != null && MessageDigest.isEqual(hmac(key, bytes), mac);
    }

    private static byte[] hmac(byte[] key, byte[] bytes) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    }
}
