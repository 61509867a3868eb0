package io.psmr.ordering.pbft;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/** SHA-256 digests of requests; the digest binds a pre-prepare to its request. */
public final class PbftDigests {

    /** Digest length in bytes. */
    public static final int LENGTH = 32;

    /**
     * One engine per thread: {@code MessageDigest.getInstance} searches the providers at every call. Declared
     * before {@link #EMPTY}, which uses it.
     */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    });

    private static final byte[] EMPTY = sha256("psmr-pbft-empty-instance".getBytes(StandardCharsets.US_ASCII));

    private PbftDigests() {
    }

    /** The digest of an EMPTY instance (no request). */
    public static byte[] empty() {
        return EMPTY.clone();
    }

    /** Whether {@code digest} is the EMPTY digest. */
    public static boolean isEmpty(byte[] digest) {
        return Arrays.equals(EMPTY, digest);
    }

    /** SHA-256 over client id, request number and payload (the MACs are not part of it). */
    public static byte[] of(long client, long number, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(20 + payload.length);
        b.putLong(client).putLong(number).putInt(payload.length).put(payload);
        return sha256(b.array());
    }

    /** Plain SHA-256. */
    public static byte[] sha256(byte[] bytes) {
        return SHA256.get().digest(bytes); // digest() resets the engine
    }
}
