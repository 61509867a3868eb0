package io.psmr.ordering.pbft;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The real authenticator under {@link PbftKeys}: HMAC-SHA256 MACs, Ed25519 replica signatures (JDK).
 * A MAC for an unknown peer or client verifies never. Thread-safe: each call uses its own {@link Mac}
 * or {@link Signature}.
 */
public final class HmacAuthenticator implements Authenticator {

    private static final byte[] NONE = new byte[0];
    private final PbftKeys keys;

    /** Authenticates with {@code keys}; signs as the replicas whose private keys they hold. */
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

    @Override
    public byte[] sign(int replica, byte[] bytes) {
        PrivateKey key = keys.privateKey(replica);
        if (key == null) {
            throw new IllegalStateException("no signing key for replica " + replica + " (this holder may sign as "
                    + keys.signers() + ")");
        }
        try {
            Signature s = Signature.getInstance(PbftKeys.SIGNATURE_ALGORITHM);
            s.initSign(key);
            s.update(bytes);
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign with Ed25519", e);
        }
    }

    @Override
    public boolean verifySignature(int replica, byte[] bytes, byte[] signature) {
        PublicKey key = keys.publicKey(replica);
        if (key == null || signature == null) {
            return false;
        }
        try {
            Signature s = Signature.getInstance(PbftKeys.SIGNATURE_ALGORITHM);
            s.initVerify(key);
            s.update(bytes);
            return s.verify(signature);
        } catch (java.security.SignatureException e) {
            return false; // a malformed signature is just a wrong one
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot verify Ed25519", e);
        }
    }

    /**
     * One HMAC-SHA256 engine per thread: {@code Mac.getInstance} searches the providers and checks the JCE's
     * signature every time, which cost a loaded replica more than the MACs themselves. Re-keyed per call.
     */
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    });

    private static byte[] hmac(byte[] key, byte[] bytes) {
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 refused a key of " + key.length + " bytes", e);
        }
        return mac.doFinal(bytes);
    }
}
