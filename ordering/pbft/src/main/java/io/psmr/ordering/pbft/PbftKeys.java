package io.psmr.ordering.pbft;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.NamedParameterSpec;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The keys of a PBFT cluster as one holder sees them: the shared secret keys (one per unordered pair
 * of replicas, one per (client, replica)), every replica's Ed25519 public key, and the private key(s)
 * this holder may sign with (a replica process holds only its own; see {@link #restrictedTo}).
 * Loaded from configuration; {@link #forTesting} derives them from a seed.
 */
public final class PbftKeys {

    /** The shortest key accepted, in bytes. */
    public static final int MIN_KEY_BYTES = 16;
    /** The JDK name of the replica signature scheme. */
    public static final String SIGNATURE_ALGORITHM = "Ed25519";

    /** No single holder: every pair key and every client key for every replica is present. */
    private static final int ALL = -1;

    private final int replicas;
    /** The replica whose process these keys are, when they hold only what it needs ({@link #ofReplica}); else ALL. */
    private final int holder;
    private final byte[][][] pairKeys;
    private final Map<Long, byte[][]> clientKeys;
    private final PublicKey[] publicKeys;
    private final Map<Integer, PrivateKey> privateKeys;

    /**
     * @param pairKeys    {@code pairKeys[i][j]} for {@code i != j}, symmetric, each at least {@value #MIN_KEY_BYTES} bytes
     * @param clientKeys  per client, one key per replica
     * @param publicKeys  {@code publicKeys[r]}: replica r's Ed25519 public key, one per replica
     * @param privateKeys the Ed25519 private keys this holder may sign with, by replica (usually just its own)
     */
    public PbftKeys(byte[][][] pairKeys, Map<Long, byte[][]> clientKeys, PublicKey[] publicKeys,
                    Map<Integer, PrivateKey> privateKeys) {
        this(pairKeys, clientKeys, publicKeys, privateKeys, ALL);
    }

    /**
     * What replica {@code replica}'s process holds in a real cluster, and no more: the pair keys it
     * shares with the others (not the other pairs' secrets), the client keys it needs (every replica's
     * key of the clients it owns, so it can MAC their requests for all; its own key of every other
     * client, so it can verify them), every public key and only its own private key. MACs for a pair or
     * a (client, replica) it does not hold are empty and verify never, as for unknown peers.
     *
     * @param pairKeys   {@code pairKeys[j]}: the key shared with replica j, for every {@code j != replica}
     *                   ({@code pairKeys[replica]} is ignored); its length is n
     * @param clientKeys per client, one entry per replica; entries other than {@code replica}'s may be null
     * @param publicKeys {@code publicKeys[r]}: replica r's Ed25519 public key, one per replica
     * @param privateKey {@code replica}'s Ed25519 private key
     */
    public static PbftKeys ofReplica(int replica, byte[][] pairKeys, Map<Long, byte[][]> clientKeys,
                                     PublicKey[] publicKeys, PrivateKey privateKey) {
        int n = pairKeys.length;
        if (replica < 0 || replica >= n) {
            throw new IllegalArgumentException("replica " + replica + " is outside [0, " + n + ")");
        }
        byte[][][] pairs = new byte[n][n][];
        for (int j = 0; j < n; j++) {
            if (j != replica) {
                pairs[replica][j] = pairKeys[j];
                pairs[j][replica] = pairKeys[j];
            }
        }
        return new PbftKeys(pairs, clientKeys, publicKeys, Map.of(replica, privateKey), replica);
    }

    private PbftKeys(byte[][][] pairKeys, Map<Long, byte[][]> clientKeys, PublicKey[] publicKeys,
                     Map<Integer, PrivateKey> privateKeys, int holder) {
        this.replicas = pairKeys.length;
        this.holder = holder;
        if (publicKeys.length != replicas) {
            throw new IllegalArgumentException(publicKeys.length + " public keys for " + replicas + " replicas");
        }
        for (int r = 0; r < replicas; r++) {
            if (publicKeys[r] == null || !SIGNATURE_ALGORITHM.equals(publicKeys[r].getAlgorithm())
                    && !"EdDSA".equals(publicKeys[r].getAlgorithm())) {
                throw new IllegalArgumentException("public key of replica " + r + " is missing or not " + SIGNATURE_ALGORITHM);
            }
        }
        this.publicKeys = publicKeys.clone();
        this.privateKeys = new TreeMap<>();
        privateKeys.forEach((r, k) -> {
            if (r < 0 || r >= replicas || k == null) {
                throw new IllegalArgumentException("private key for replica " + r + " is missing or outside [0, " + replicas + ")");
            }
            this.privateKeys.put(r, k);
        });
        this.pairKeys = new byte[replicas][replicas][];
        for (int i = 0; i < replicas; i++) {
            if (pairKeys[i].length != replicas) {
                throw new IllegalArgumentException("pairKeys[" + i + "] has " + pairKeys[i].length + " keys, expected " + replicas);
            }
            for (int j = 0; j < replicas; j++) {
                if (i == j || holder != ALL && i != holder && j != holder) {
                    continue; // a replica's process holds no secret of pairs it is not in
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
                if (holder != ALL && r != holder && keys[r] == null) {
                    continue; // a client this replica does not own: it only verifies its own entry
                }
                if (keys[r] == null || keys[r].length < MIN_KEY_BYTES) {
                    throw new IllegalArgumentException("key of client " + client + " for replica " + r
                            + " is missing or shorter than " + MIN_KEY_BYTES + " bytes");
                }
                copy[r] = keys[r].clone();
            }
            this.clientKeys.put(client, copy);
        });
    }

    /**
     * Deterministic keys for {@code replicas} replicas and clients {@code 0..clients-1}, derived from
     * {@code seed}, holding every replica's private key (an in-JVM test cluster); use
     * {@link #restrictedTo} for what one replica would hold.
     */
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
        PublicKey[] publicKeys = new PublicKey[replicas];
        Map<Integer, PrivateKey> privateKeys = new HashMap<>();
        for (int r = 0; r < replicas; r++) {
            KeyPair pair = signingKeyPair(derive(seed, 'S', r, 0));
            publicKeys[r] = pair.getPublic();
            privateKeys.put(r, pair.getPrivate());
        }
        return new PbftKeys(pairs, clientKeys, publicKeys, privateKeys);
    }

    /** The same keys with only {@code replica}'s private key: what replica {@code replica}'s process holds. */
    public PbftKeys restrictedTo(int replica) {
        PrivateKey own = privateKeys.get(replica);
        if (own == null) {
            throw new IllegalStateException("no private key for replica " + replica + " to restrict to (holding "
                    + signers() + ")");
        }
        return new PbftKeys(pairKeys, clientKeys, publicKeys, Map.of(replica, own), holder);
    }

    /**
     * An Ed25519 key pair determined by {@code seed}: the JDK's generator draws its 32 private-key
     * bytes from the given random, here a SHA1PRNG seeded before first use, which is deterministic.
     */
    private static KeyPair signingKeyPair(byte[] seed) {
        try {
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(seed);
            KeyPairGenerator generator = KeyPairGenerator.getInstance(SIGNATURE_ALGORITHM);
            generator.initialize(NamedParameterSpec.ED25519, random);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot generate Ed25519 keys", e);
        }
    }

    private static byte[] derive(long seed, char kind, long a, long b) {
        return PbftDigests.sha256(ByteBuffer.allocate(26).putLong(seed).putChar(kind).putLong(a).putLong(b).array());
    }

    /** The number of replicas. */
    public int replicas() {
        return replicas;
    }

    /** Replica {@code replica}'s public key, or null for an unknown replica. */
    public PublicKey publicKey(int replica) {
        return replica < 0 || replica >= replicas ? null : publicKeys[replica];
    }

    /** The replicas this holder may sign as, ascending. */
    public java.util.SortedSet<Integer> signers() {
        return new TreeSet<>(privateKeys.keySet());
    }

    PrivateKey privateKey(int replica) {
        return privateKeys.get(replica);
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
