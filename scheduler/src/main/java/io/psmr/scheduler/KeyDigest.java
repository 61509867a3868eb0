package io.psmr.scheduler;

/**
 * The one fixed key hash of psmr, part of the wire contract.
 *
 * <p>A key's digest is the first 64 bits of MurmurHash3 x64 128 with seed 0 over the key's bytes,
 * read little-endian: exactly {@code Hashing.murmur3_128(0).hashBytes(key).asLong()} in Guava. A
 * key's bit in a bitmap of {@code m} bits is {@code Math.floorMod(digest, m)}. Client proxies,
 * replicas and the simulator all call this class, so the same key sets the same bit on every JVM
 * and machine. Changing either function breaks compatibility between proxies and replicas.
 *
 * <p>Integer keys (the simulator's and the synthetic workloads') are hashed as their 8 bytes in
 * little-endian order, so {@code digest(long)} equals {@code digest(byte[])} of those bytes.
 *
 * <p>Thread-safe and allocation-free.
 */
public final class KeyDigest {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private KeyDigest() {
    }

    /** Digest of a whole key. */
    public static long digest(byte[] key) {
        return digest(key, 0, key.length);
    }

    /** Digest of {@code len} bytes of {@code key} starting at {@code off}. */
    public static long digest(byte[] key, int off, int len) {
        long h1 = 0;
        long h2 = 0;
        int blocks = len >>> 4;
        int p = off;
        for (int b = 0; b < blocks; b++, p += 16) {
            long k1 = readLongLe(key, p);
            long k2 = readLongLe(key, p + 8);
            h1 ^= mixK1(k1);
            h1 = Long.rotateLeft(h1, 27);
            h1 += h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2(k2);
            h2 = Long.rotateLeft(h2, 31);
            h2 += h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        int rem = len & 15;
        if (rem > 0) {
            long k1 = 0;
            long k2 = 0;
            for (int i = rem - 1; i >= 8; i--) {
                k2 = (k2 << 8) | (key[p + i] & 0xffL);
            }
            for (int i = Math.min(rem, 8) - 1; i >= 0; i--) {
                k1 = (k1 << 8) | (key[p + i] & 0xffL);
            }
            h1 ^= mixK1(k1);
            h2 ^= mixK2(k2);
        }
        return finish(h1, h2, len);
    }

    /** Digest of an integer key: the digest of its 8 little-endian bytes. */
    public static long digest(long key) {
        // One 8-byte tail, no full block: the same steps as digest(byte[]) takes for 8 bytes.
        long h1 = mixK1(key);
        return finish(h1, 0, 8);
    }

    /**
     * The bit of a digest in a bitmap of {@code bits} bits: {@code Math.floorMod(digest, bits)}.
     *
     * @throws IllegalArgumentException if {@code bits} is not positive
     */
    public static int bitIndex(long digest, int bits) {
        if (bits <= 0) {
            throw new IllegalArgumentException("bitmap size must be positive, got " + bits);
        }
        return (int) Math.floorMod(digest, (long) bits);
    }

    private static long finish(long h1, long h2, int len) {
        h1 ^= len;
        h2 ^= len;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        return h1;
    }

    private static long mixK1(long k1) {
        k1 *= C1;
        k1 = Long.rotateLeft(k1, 31);
        return k1 * C2;
    }

    private static long mixK2(long k2) {
        k2 *= C2;
        k2 = Long.rotateLeft(k2, 33);
        return k2 * C1;
    }

    private static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    private static long readLongLe(byte[] b, int p) {
        return (b[p] & 0xffL)
                | (b[p + 1] & 0xffL) << 8
                | (b[p + 2] & 0xffL) << 16
                | (b[p + 3] & 0xffL) << 24
                | (b[p + 4] & 0xffL) << 32
                | (b[p + 5] & 0xffL) << 40
                | (b[p + 6] & 0xffL) << 48
                | (b[p + 7] & 0xffL) << 56;
    }
}
