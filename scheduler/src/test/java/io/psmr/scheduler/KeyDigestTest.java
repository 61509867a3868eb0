package io.psmr.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Checks the key hash and bit index, the wire contract of psmr, against Guava and fixed vectors. */
class KeyDigestTest {

    /** Base seed; re-run a failure with {@code -Dpsmr.seed=<seed>}. */
    private static final long SEED = Long.getLong("psmr.seed", 0x5EED_D16E57L);

    private static final HashFunction MURMUR = Hashing.murmur3_128(0);

    private static String where(long trial) {
        return " [psmr.seed=" + SEED + ", trial " + trial + "]";
    }

    @Test
    void digestEqualsGuavaMurmur3ForRandomKeysOfEveryLength() {
        Random rnd = new Random(SEED);
        int trial = 0;
        for (int len = 0; len <= 100; len++) {
            for (int rep = 0; rep < 60; rep++, trial++) {
                byte[] key = new byte[len];
                rnd.nextBytes(key);
                long expected = MURMUR.hashBytes(key).asLong();
                assertEquals(expected, KeyDigest.digest(key),
                        "digest of " + HexFormat.of().formatHex(key) + where(trial));
            }
        }
    }

    @Test
    void digestOfSliceEqualsGuavaAndDigestOfCopy() {
        Random rnd = new Random(SEED ^ 0x51CE);
        for (int trial = 0; trial < 5000; trial++) {
            byte[] buf = new byte[rnd.nextInt(130) + 1];
            rnd.nextBytes(buf);
            int off = rnd.nextInt(buf.length + 1);
            int len = rnd.nextInt(Math.min(100, buf.length - off) + 1);
            long expected = MURMUR.hashBytes(buf, off, len).asLong();
            assertEquals(expected, KeyDigest.digest(buf, off, len),
                    "digest(buf, " + off + ", " + len + ") of " + buf.length + " bytes" + where(trial));
            assertEquals(KeyDigest.digest(Arrays.copyOfRange(buf, off, off + len)), KeyDigest.digest(buf, off, len),
                    "slice and copy differ" + where(trial));
        }
    }

    @Test
    void digestOfLongEqualsDigestOfItsLittleEndianBytes() {
        Random rnd = new Random(SEED ^ 0x1046);
        long[] edges = {0, 1, -1, 255, 256, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE};
        for (long k : edges) {
            assertEquals(KeyDigest.digest(littleEndian(k)), KeyDigest.digest(k), "digest(" + k + "L)");
            assertEquals(MURMUR.hashLong(k).asLong(), KeyDigest.digest(k), "Guava hashLong(" + k + ")");
        }
        for (int trial = 0; trial < 10_000; trial++) {
            long k = trial % 2 == 0 ? rnd.nextLong() : rnd.nextInt(1_000_000);
            assertEquals(KeyDigest.digest(littleEndian(k)), KeyDigest.digest(k), "digest(" + k + "L)" + where(trial));
        }
    }

    /**
     * Fixed vectors: the wire contract. Proxies and replicas on different JVMs must agree on these
     * bits; if this test fails, the hash changed and deployed proxies and replicas no longer agree.
     * The byte-string vectors of "hello" and the quick brown fox are also Guava's published
     * murmur3_128 test vectors (first 8 bytes, little-endian).
     */
    @Test
    void fixedVectorsAreTheWireContract() {
        Object[][] strings = {
            // key, digest, bit at m = 102400, bit at m = 1024000
            {"", 0x0000000000000000L, 0, 0},
            {"a", 0x85555565f6597889L, 2185, 514185},
            {"hello", 0xcbd8a7b341bd9b02L, 31490, 850690},
            {"psmr", 0x6525530ac202d5b0L, 1456, 103856},
            {"0123456789abcdef", 0x4be06d94cf4ad1a7L, 41383, 348583},
            {"0123456789abcdefg", 0x8e32612daa45f9deL, 72158, 891358},
            {"The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6cL, 97132, 506732},
            {"user:42", 0xcd01081bf0aa3a68L, 35432, 957032},
        };
        for (Object[] v : strings) {
            String key = (String) v[0];
            long digest = KeyDigest.digest(key.getBytes(StandardCharsets.UTF_8));
            assertEquals((long) v[1], digest, "digest of \"" + key + "\" changed: the wire contract is broken");
            assertEquals((int) v[2], KeyDigest.bitIndex(digest, 102_400), "bit of \"" + key + "\" at m=102400");
            assertEquals((int) v[3], KeyDigest.bitIndex(digest, 1_024_000), "bit of \"" + key + "\" at m=1024000");
        }
        Object[][] longs = {
            {0L, 0x28df63b7cc57c3cbL, 33739, 238539},
            {1L, 0x004403b7fb05c44aL, 50250, 50250},
            {-1L, 0xa0e4b27a1abaed73L, 97651, 200051},
            {42L, 0xb6acc39989d27df8L, 3576, 515576},
            {Long.MIN_VALUE, 0x01159dfeb4593227L, 551, 922151},
            {Long.MAX_VALUE, 0x6c76ebcbdad669d4L, 92628, 911828},
            {1_000_000L, 0xab3073c4b3c0380cL, 55308, 260108},
        };
        for (Object[] v : longs) {
            long key = (long) v[0];
            long digest = KeyDigest.digest(key);
            assertEquals((long) v[1], digest, "digest of " + key + "L changed: the wire contract is broken");
            assertEquals((int) v[2], KeyDigest.bitIndex(digest, 102_400), "bit of " + key + "L at m=102400");
            assertEquals((int) v[3], KeyDigest.bitIndex(digest, 1_024_000), "bit of " + key + "L at m=1024000");
        }
    }

    @Test
    void bitIndexIsFloorModAndInRange() {
        Random rnd = new Random(SEED ^ 0xB17);
        long[] digests = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, 102_399, -102_400};
        int[] sizes = {1, 2, 63, 64, 65, 102_400, 1_024_000, Integer.MAX_VALUE};
        for (long d : digests) {
            for (int m : sizes) {
                assertBitIndex(d, m, -1);
            }
        }
        for (int trial = 0; trial < 20_000; trial++) {
            long d = rnd.nextLong();
            int m = switch (trial % 4) {
                case 0 -> 1 + rnd.nextInt(128);
                case 1 -> 1 + rnd.nextInt(2_000_000);
                case 2 -> trial % 8 == 2 ? 102_400 : 1_024_000;
                default -> 1 + rnd.nextInt(Integer.MAX_VALUE);
            };
            assertBitIndex(d, m, trial);
        }
    }

    private static void assertBitIndex(long digest, int m, long trial) {
        int bit = KeyDigest.bitIndex(digest, m);
        assertEquals((int) Math.floorMod(digest, (long) m), bit, "bitIndex(" + digest + ", " + m + ")" + where(trial));
        assertTrue(bit >= 0 && bit < m, "bit " + bit + " outside [0, " + m + ")" + where(trial));
    }

    @Test
    void bitIndexRejectsNonPositiveSizes() {
        for (int m : new int[] {0, -1, -64, Integer.MIN_VALUE}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> KeyDigest.bitIndex(12345L, m), "m=" + m);
            assertEquals("bitmap size must be positive, got " + m, e.getMessage());
        }
    }

    private static byte[] littleEndian(long k) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (k >>> (8 * i));
        }
        return b;
    }
}
