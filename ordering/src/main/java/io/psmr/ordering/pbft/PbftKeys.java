package io.psmr.ordering.pbft;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The shared secret keys: one per unordered pair of replicas, and one per (client, replica).
 * Loaded from configuration; {@link #forTesting} derives them from a seed.
 */
public final class PbftKeys {

    /** The shortest key accepted, in bytes. */
    public static final int MIN_KEY_BYTES = 16;

    private final int replicas;
    private final byte[][][] pairKeys;
    private final Map<Long, byte[][]> clientKeys;

    /**
     * @param pairKeys   {@code pairKeys[i][j]} for {@code i != j}, symmetric, each at least {@value #MIN_KEY_BYTES} bytes
     * @param clientKeys per client, one key per replica
     */
    public PbftKeys(byte[][][] pairKeys, Map<Long, byte[][]> clientKeys) {
        this.replicas = pairKeys.length;
        this.pairKeys = new byte[replicas][replicas][];
        for (int i = 0; i < replicas; i++) {
            if (pairKeys[i].length != replicas) {
                throw new IllegalArgumentException("pairKeys[" + i + "] has " + pairKeys[i].length + " keys, expected " + replicas);
            }
            for (int j = 0; j < replicas; j++) {
                if (i == j) {
                    continue;
                }
                byte[] k = pairKeys[i][j];
                if (k == null || k.length < MIN_KEY_BYTES) {
                    throw new IllegalArgumentException("key of replicas " + i + " and " + j + " is missing or shorter than "
                            + MIN_KEY_BYTES + " bytes");
                }
                if (!java.util.Arrays.equals(k, pairKeys[j][i])) {
                    throw new IllegalArgumentException("key of replicas " + i + " and " + j + " is not symmetric");
                }
                this.pairKeys[i][j] = k.clone();
            }
        }
        this.clientKeys = new HashMap<>();
        clientKeys.forEach((client, keys) -> {
            if (keys.length != replicas) {
                throw new IllegalArgumentException("client " + client + " has " + keys.length + " keys, expected " + replicas);
            }
            byte[][] copy = new byte[replicas][];
            for (int r = 0; r < replicas; r++) {
                if (keys[r] == null || keys[r].length < MIN_KEY_BYTES) {
                    throw new IllegalArgumentException("key of client " + client + " for replica " + r
                            + " is missing or shorter than " + MIN_KEY_BYTES + " bytes");
                }
                copy[r] = keys[r].clone();
            }
            this.clientKeys.put(client, copy);
        });
    }

    /** Deterministic keys for {@code replicas} replicas and clients {@code 0..clients-1}, derived from {@code seed}. */
    public static PbftKeys forTesting(long seed, int replicas, int clients) {
        byte[][][] pairs = new byte[replicas][replicas][];
        for (int i = 0; i < replicas; i++) {
            for (int j = 0; j < replicas; j++) {
                if (i != j) {
                    pairs[i][j] = derive(seed, 'R', Math.min(i, j), Math.max(i, j));
                }
            }
        }
        Map<Long, byte[][]> clientKeys = new HashMap<>();
        for (long c = 0; c < clients; c++) {
            byte[][] keys = new byte[replicas][];
            for (int r = 0; r < replicas; r++) {
                keys[r] = derive(seed, 'C', c, r);
            }
            clientKeys.put(c, keys);
        }
        return new PbftKeys(pairs, clientKeys);
    }

    private static byte[] derive(long seed, char kind, long a, long b) {
        return PbftDigests.sha256(ByteBuffer.allocate(26).putLong(seed).putChar(kind).putLong(a).putLong(b).array());
    }

    /** The number of replicas. */
    public int replicas() {
        return replicas;
    }

    byte[] pair(int a, int b) {
        if (a < 0 || b < 0 || a >= replicas || b >= replicas || a == b) {
            return null;
        }
        return pairKeys[a][b];
    }

    byte[] client(long client, int replica) {
        byte[][] keys = clientKeys.get(client);
        return keys == null || replica < 0 || replica >= replicas ? null : keys[replica];
    }
}
