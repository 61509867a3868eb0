package io.psmr.ordering.pbft.keys;

import io.psmr.ordering.pbft.PbftKeys;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.TreeMap;

/**
 * The contents of one replica's PBFT key file ({@code docs/pbft.md}, "Keys"), and its strict text
 * format: ASCII lines {@code name=value}, {@code #} comments, every entry exactly once, no others,
 * secrets in canonical base64, ending with a newline. Immutable after construction; thread-safe.
 *
 * @param replica    whose file
 * @param replicas   n
 * @param pillars    Np
 * @param generation the key generation's fingerprint ({@link #fingerprint})
 * @param pairKeys   {@code pairKeys[j]}: the key shared with replica j ({@code [replica]} is null)
 * @param clientKeys client id → one key per replica: all of them for the clients it owns
 *                   ({@code replica·Np + p}), only its own entry for the others
 * @param publicKeys every replica's Ed25519 public key
 * @param privateKey this replica's Ed25519 private key
 */
record ReplicaKeyFile(int replica, int replicas, int pillars, String generation, byte[][] pairKeys,
                      Map<Long, byte[][]> clientKeys, PublicKey[] publicKeys, PrivateKey privateKey) {

    /** The value of the {@code format} entry this code writes and reads. */
    static final String FORMAT = "psmr-pbft-keys/1";
    static final int MAX_REPLICAS = 64;
    static final int MAX_PILLARS = 64;

    /** Whether {@code replica} owns client {@code client} (it is one of its pillars' lanes). */
    static boolean owns(int replica, int pillars, long client) {
        return client / pillars == replica;
    }

    /**
     * The generation's ID: the first 16 bytes, hex, of SHA-256 over the format, n, Np and every public key
     * (length-prefixed). Public keys are fresh per generation, so two generations differ; and a file whose
     * public keys were swapped no longer matches its own ID.
     */
    static String fingerprint(int replicas, int pillars, PublicKey[] publicKeys) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(FORMAT.getBytes(StandardCharsets.US_ASCII));
            sha.update(ByteBuffer.allocate(8).putInt(replicas).putInt(pillars).array());
            for (PublicKey k : publicKeys) {
                byte[] encoded = k.getEncoded();
                sha.update(ByteBuffer.allocate(4).putInt(encoded.length).array());
                sha.update(encoded);
            }
            byte[] digest = sha.digest();
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** The keys as {@link PbftKeys} of this replica (its own private key only, no other pair's secret). */
    PbftKeys toKeys() {
        return PbftKeys.ofReplica(replica, pairKeys, clientKeys, publicKeys, privateKey);
    }

    /** The file's text (deterministic: entries in a fixed order, nothing time-dependent). */
    String toText() {
        StringBuilder out = new StringBuilder();
        out.append("# psmr PBFT keys of replica ").append(replica).append(" of ").append(replicas).append(" (")
                .append(pillars).append(" pillars per replica).\n")
                .append("# SECRET: keep it owner-only (chmod 600). Do not edit; see docs/pbft.md, \"Keys\".\n");
        entry(out, "format", FORMAT);
        entry(out, "generation", generation);
        entry(out, "replica", Integer.toString(replica));
        entry(out, "replicas", Integer.toString(replicas));
        entry(out, "pillars", Integer.toString(pillars));
        for (int j = 0; j < replicas; j++) {
            if (j != replica) {
                entry(out, "pair." + j, base64(pairKeys[j]));
            }
        }
        for (long c = 0; c < (long) replicas * pillars; c++) {
            byte[][] keys = clientKeys.get(c);
            for (int r = 0; r < replicas; r++) {
                if (owns(replica, pillars, c) || r == replica) {
                    entry(out, "client." + c + "." + r, base64(keys[r]));
                }
            }
        }
        for (int r = 0; r < replicas; r++) {
            entry(out, "signing.public." + r, base64(publicKeys[r].getEncoded()));
        }
        entry(out, "signing.private", base64(privateKey.getEncoded()));
        return out.toString();
    }

    private static void entry(StringBuilder out, String name, String value) {
        out.append(name).append('=').append(value).append('\n');
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * Parses and checks {@code bytes}, the contents of {@code file}, expected to be replica
     * {@code replica}'s file of a cluster of {@code replicas} × {@code pillars} (0 = not checked).
     *
     * @throws PbftKeyFileException naming the file and the first problem found
     */
    static ReplicaKeyFile parse(Path file, byte[] bytes, int replica, int replicas, int pillars)
            throws PbftKeyFileException {
        return new Parser(file).parse(bytes, replica, replicas, pillars);
    }

    /** One parse; not thread-safe (used by one call of {@link #parse}). */
    private static final class Parser {
        private final Path file;
        private final Map<String, String> values = new LinkedHashMap<>();
        private final Map<String, Integer> lines = new HashMap<>();

        Parser(Path file) {
            this.file = file;
        }

        private PbftKeyFileException refuse(String problem) {
            return new PbftKeyFileException(file, "PBFT key file " + file + " " + problem);
        }

        private PbftKeyFileException refuse(String name, String problem) {
            return refuse("line " + lines.get(name) + ": " + name + " " + problem);
        }

        ReplicaKeyFile parse(byte[] bytes, int expectedReplica, int expectedReplicas, int expectedPillars)
                throws PbftKeyFileException {
            String text;
            try {
                text = StandardCharsets.US_ASCII.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw refuse("is not ASCII text: not a PBFT key file, or damaged");
            }
            if (text.isEmpty() || text.charAt(text.length() - 1) != '\n') {
                throw refuse("does not end with a newline: truncated?");
            }
            String[] split = text.substring(0, text.length() - 1).split("\n", -1);
            for (int i = 0; i < split.length; i++) {
                String line = split[i];
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int eq = line.indexOf('=');
                if (eq <= 0) {
                    throw refuse("line " + (i + 1) + " is not name=value");
                }
                String name = line.substring(0, eq);
                if (values.containsKey(name)) {
                    throw refuse("line " + (i + 1) + ": duplicate entry " + name + " (first on line " + lines.get(name) + ")");
                }
                values.put(name, line.substring(eq + 1));
                lines.put(name, i + 1);
            }
            String format = values.get("format");
            if (format == null) {
                throw refuse("has no format entry: not a PBFT key file (expected format=" + FORMAT + ")");
            }
            if (!FORMAT.equals(format)) {
                throw refuse("is of format '" + format + "', this psmr reads " + FORMAT);
            }
            int replica = integer("replica", 0, MAX_REPLICAS - 1);
            int replicas = integer("replicas", 1, MAX_REPLICAS);
            int pillars = integer("pillars", 1, MAX_PILLARS);
            if (replica != expectedReplica) {
                throw refuse("holds the keys of replica " + replica + ", not of replica " + expectedReplica
                        + " (renamed or copied from another replica?)");
            }
            if (expectedReplicas > 0 && replicas != expectedReplicas) {
                throw refuse("is for " + replicas + " replicas, the cluster has " + expectedReplicas);
            }
            if (expectedPillars > 0 && pillars != expectedPillars) {
                throw refuse("is for " + pillars + " pillars per replica, the cluster has " + expectedPillars);
            }
            if (replica >= replicas) {
                throw refuse("is of replica " + replica + " in a cluster of " + replicas + " replicas");
            }
            Set<String> expected = expectedNames(replica, replicas, pillars);
            for (String name : values.keySet()) {
                if (!expected.contains(name)) {
                    throw refuse(name, "is not an entry of a " + replicas + "-replica, " + pillars + "-pillar key file");
                }
            }
            for (String name : expected) {
                if (!values.containsKey(name)) {
                    throw refuse("has no entry " + name + ": truncated or edited");
                }
            }
            byte[][] pairKeys = new byte[replicas][];
            for (int j = 0; j < replicas; j++) {
                if (j != replica) {
                    pairKeys[j] = secret("pair." + j);
                }
            }
            Map<Long, byte[][]> clientKeys = new TreeMap<>();
            for (long c = 0; c < (long) replicas * pillars; c++) {
                byte[][] keys = new byte[replicas][];
                for (int r = 0; r < replicas; r++) {
                    if (owns(replica, pillars, c) || r == replica) {
                        keys[r] = secret("client." + c + "." + r);
                    }
                }
                clientKeys.put(c, keys);
            }
            PublicKey[] publicKeys = new PublicKey[replicas];
            for (int r = 0; r < replicas; r++) {
                publicKeys[r] = publicKey("signing.public." + r);
            }
            PrivateKey privateKey = privateKey("signing.private");
            if (!matches(privateKey, publicKeys[replica])) {
                throw refuse("signing.private", "does not match signing.public." + replica + ", the file's own public key");
            }
            String generation = values.get("generation");
            String fingerprint = fingerprint(replicas, pillars, publicKeys);
            if (!fingerprint.equals(generation)) {
                throw refuse("generation", generation + " does not match the file's public keys (fingerprint "
                        + fingerprint + "): edited, or assembled from two key generations");
            }
            return new ReplicaKeyFile(replica, replicas, pillars, generation, pairKeys, clientKeys, publicKeys, privateKey);
        }

        private static Set<String> expectedNames(int replica, int replicas, int pillars) {
            Set<String> names = new LinkedHashSet<>(List.of("format", "generation", "replica", "replicas", "pillars",
                    "signing.private"));
            for (int r = 0; r < replicas; r++) {
                names.add("signing.public." + r);
                if (r != replica) {
                    names.add("pair." + r);
                }
            }
            for (long c = 0; c < (long) replicas * pillars; c++) {
                for (int r = 0; r < replicas; r++) {
                    if (owns(replica, pillars, c) || r == replica) {
                        names.add("client." + c + "." + r);
                    }
                }
            }
            return names;
        }

        private int integer(String name, int min, int max) throws PbftKeyFileException {
            String value = values.get(name);
            if (value == null) {
                throw refuse("has no entry " + name + ": truncated or edited");
            }
            if (!value.matches("[0-9]{1,9}") || Integer.parseInt(value) < min || Integer.parseInt(value) > max) {
                throw refuse(name, "must be an integer in [" + min + ", " + max + "]: '" + value + "'");
            }
            return Integer.parseInt(value);
        }

        private byte[] bytes(String name) throws PbftKeyFileException {
            String value = values.get(name);
            byte[] decoded;
            try {
                decoded = Base64.getDecoder().decode(value);
            } catch (IllegalArgumentException e) {
                decoded = null;
            }
            // Canonical only: the JDK decoder also takes unpadded text, so a cut value could decode.
            if (decoded == null || value.isEmpty() || !Base64.getEncoder().encodeToString(decoded).equals(value)) {
                throw refuse(name, "is not valid base64: truncated or edited");
            }
            return decoded;
        }

        private byte[] secret(String name) throws PbftKeyFileException {
            byte[] key = bytes(name);
            if (key.length < PbftKeys.MIN_KEY_BYTES) {
                throw refuse(name, "is " + key.length + " bytes, shorter than the minimum of " + PbftKeys.MIN_KEY_BYTES);
            }
            return key;
        }

        private PublicKey publicKey(String name) throws PbftKeyFileException {
            byte[] encoded = bytes(name);
            try {
                return KeyFactory.getInstance(PbftKeys.SIGNATURE_ALGORITHM).generatePublic(new X509EncodedKeySpec(encoded));
            } catch (GeneralSecurityException | RuntimeException e) {
                throw refuse(name, "is not an Ed25519 public key (X.509)");
            }
        }

        private PrivateKey privateKey(String name) throws PbftKeyFileException {
            byte[] encoded = bytes(name);
            try {
                return KeyFactory.getInstance(PbftKeys.SIGNATURE_ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(encoded));
            } catch (GeneralSecurityException | RuntimeException e) {
                throw refuse(name, "is not an Ed25519 private key (PKCS#8)");
            }
        }

        /** Whether {@code privateKey}'s signature verifies under {@code publicKey} (Ed25519 is deterministic). */
        private static boolean matches(PrivateKey privateKey, PublicKey publicKey) {
            byte[] probe = "psmr-pbft-keys: does this private key match its public key".getBytes(StandardCharsets.US_ASCII);
            try {
                Signature signer = Signature.getInstance(PbftKeys.SIGNATURE_ALGORITHM);
                signer.initSign(privateKey);
                signer.update(probe);
                byte[] signature = signer.sign();
                Signature verifier = Signature.getInstance(PbftKeys.SIGNATURE_ALGORITHM);
                verifier.initVerify(publicKey);
                verifier.update(probe);
                return verifier.verify(signature);
            } catch (GeneralSecurityException e) {
                return false;
            }
        }
    }
}
