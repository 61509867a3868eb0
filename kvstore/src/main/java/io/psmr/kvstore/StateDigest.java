package io.psmr.kvstore;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;

/**
 * The state digest of a store: a 64-bit value equal on two stores with equal contents, whatever
 * order they were filled in, so replicas can be compared.
 *
 * <p>Definition (a wire contract, like the key hash):
 * <ol>
 *   <li>each entry hashes to {@code h(k, v)} = the first 64 bits ({@code asLong}) of MurmurHash3
 *       x64 128 with seed 0 over: the key length as a 4-byte little-endian int, the key bytes, the
 *       value length as a 4-byte little-endian int, the value bytes (the lengths frame the fields,
 *       so moving bytes between key and value changes the hash);</li>
 *   <li>the entry hashes are summed modulo 2<sup>64</sup>: addition is commutative, so the sum does
 *       not depend on iteration or insertion order (a sum, unlike xor, does not cancel equal hashes);</li>
 *   <li>the digest is MurmurHash3 x64 128 (seed 0, first 64 bits) over the entry count and the sum,
 *       each as 8 little-endian bytes.</li>
 * </ol>
 * It is computed by one pass over the store, when asked; it is not maintained on every write.
 */
public final class StateDigest {

    private static final HashFunction MURMUR = Hashing.murmur3_128(0);

    private long sum;
    private long count;

    /** An empty accumulator (the digest of an empty store). */
    public StateDigest() {
    }

    /** The hash of one entry, step 1. */
    public static long entryHash(byte[] key, byte[] value) {
        return MURMUR.newHasher(8 + key.length + value.length)
                .putInt(key.length).putBytes(key).putInt(value.length).putBytes(value)
                .hash().asLong();
    }

    /** Adds one entry. */
    public StateDigest add(byte[] key, byte[] value) {
        sum += entryHash(key, value);
        count++;
        return this;
    }

    /** The digest of the entries added so far, step 3. */
    public long value() {
        return MURMUR.newHasher(16).putLong(count).putLong(sum).hash().asLong();
    }

    /** The digest of a whole store. Only meaningful while no command executes. */
    public static long of(KvStore store) {
        StateDigest d = new StateDigest();
        store.forEach(d::add);
        return d.value();
    }

    /** A digest as 16 lower-case hex digits, the form printed by tools. */
    public static String hex(long digest) {
        return String.format("%016x", digest);
    }
}
