package io.psmr.ordering.pbft.keys;

import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.transport.OwnerOnlyFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.spec.NamedParameterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The key files of a PBFT cluster of real processes: one file per replica, {@code replica-<id>.keys}
 * in the cluster's key directory, holding exactly what that replica needs (see {@code docs/pbft.md},
 * "Keys"). {@link #generate} writes a new key generation (what {@code cluster start} will call);
 * {@link #load} gives a replica its {@link PbftKeys}, refusing a file that is missing, readable by
 * others, malformed, of another replica or cluster shape, or of another key generation than the
 * other files beside it.
 *
 * <p>Concurrency: static methods, no shared state but the once-per-JVM "no POSIX permissions" warning;
 * they block on file I/O. Two concurrent {@link #generate} calls on one directory are not supported
 * (the launcher runs one {@code cluster start} per directory).
 */
public final class PbftKeyFiles {

    /** The bytes of each generated HMAC key (pair and client keys). */
    public static final int KEY_BYTES = 32;
    /** The largest n this format accepts. */
    public static final int MAX_REPLICAS = ReplicaKeyFile.MAX_REPLICAS;
    /** The largest Np this format accepts. */
    public static final int MAX_PILLARS = ReplicaKeyFile.MAX_PILLARS;
    /** The largest key file read (a 64 × 64 file is about 0.5 MiB). */
    static final long MAX_FILE_BYTES = 1 << 20;

    private static final Pattern FILE_NAME = Pattern.compile("replica-(0|[1-9][0-9]{0,8})\\.keys");

    private PbftKeyFiles() {
    }

    /** Replica {@code replica}'s key file in {@code keysDir}. */
    public static Path file(Path keysDir, int replica) {
        return keysDir.resolve("replica-" + replica + ".keys");
    }

    /**
     * Writes a new key generation for {@code replicas} replicas of {@code pillars} pillars: fresh pair keys,
     * client keys (clients {@code 0 .. n·Np-1}; client {@code r·Np + p} is pillar p of replica r) and Ed25519
     * key pairs, drawn from {@code random}. Creates {@code keysDir} if needed and makes it rwx------; each
     * file is created rw------- under a temporary name, forced to disk, and moved into place once all are
     * written. Nothing in the files depends on time: the same random gives the same bytes.
     *
     * @param force whether to replace existing key files; with it, key files of replicas ≥ n are deleted too
     * @return the new generation's ID (also in every file)
     * @throws PbftKeyFileException if key files exist and {@code force} is false, or keysDir is not a directory
     */
    public static String generate(Path keysDir, int replicas, int pillars, SecureRandom random, boolean force)
            throws IOException {
        if (replicas < 1 || replicas > MAX_REPLICAS) {
            throw new IllegalArgumentException("replicas must be in [1, " + MAX_REPLICAS + "]: " + replicas);
        }
        if (pillars < 1 || pillars > MAX_PILLARS) {
            throw new IllegalArgumentException("pillars must be in [1, " + MAX_PILLARS + "]: " + pillars);
        }
        if (random == null) {
            throw new IllegalArgumentException("random must not be null");
        }
        if (Files.isDirectory(keysDir)) {
            List<Path> existing = keyFiles(keysDir);
            if (!existing.isEmpty() && !force) {
                throw new PbftKeyFileException(keysDir, "PBFT key directory " + keysDir + " already holds key files "
                        + existing.stream().map(p -> p.getFileName().toString()).toList()
                        + "; refusing to overwrite them without force");
            }
        }
        OwnerOnlyFiles.ownerOnlyDirectory(keysDir, "PBFT key directory", PbftKeyFileException::new);

        List<ReplicaKeyFile> files = material(replicas, pillars, random);
        List<Path> written = new ArrayList<>();
        try {
            for (ReplicaKeyFile f : files) {
                written.add(OwnerOnlyFiles.writeTemporary(keysDir, ".replica-" + f.replica() + ".keys.",
                        f.toText().getBytes(StandardCharsets.US_ASCII)));
            }
            for (int r = 0; r < replicas; r++) {
                // Rename replaces an existing file atomically on POSIX: a reader sees the old or the new file.
                Files.move(written.get(r), file(keysDir, r), StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            for (Path tmp : written) {
                Files.deleteIfExists(tmp);
            }
        }
        for (Path stale : keyFiles(keysDir)) {
            if (replicaOf(stale) >= replicas) {
                Files.delete(stale); // only reached with force: a smaller cluster must not keep old replicas' files
            }
        }
        OwnerOnlyFiles.syncDirectory(keysDir);
        return files.get(0).generation();
    }

    /** {@link #load(Path, int, int, int)} without checking n and Np against a configuration. */
    public static PbftKeys load(Path keysDir, int replica) throws IOException {
        return load(keysDir, replica, 0, 0);
    }

    /**
     * Replica {@code replica}'s keys from its file in {@code keysDir}: its pair keys, the client keys it
     * needs, every public key and its own private key only.
     *
     * @param replicas the cluster's n, or 0 not to check it
     * @param pillars  the cluster's Np, or 0 not to check it
     * @throws PbftKeyFileException naming the file and why it is refused: missing; readable or writable by group
     *                              or others; not a key file, another format version, truncated or invalid;
     *                              of another replica, n or Np; keys too short, not Ed25519, a private key not
     *                              matching its public key; a generation different from another replica's file
     *                              in the same directory
     */
    public static PbftKeys load(Path keysDir, int replica, int replicas, int pillars) throws IOException {
        if (replica < 0 || replicas < 0 || pillars < 0) {
            throw new IllegalArgumentException("replica, replicas and pillars must be non-negative: " + replica + ", "
                    + replicas + ", " + pillars);
        }
        Path file = file(keysDir, replica);
        if (!Files.exists(file)) {
            throw new PbftKeyFileException(file, "PBFT key file " + file
                    + " is missing; a PBFT cluster's keys are written by cluster start");
        }
        if (!Files.isRegularFile(file)) {
            throw new PbftKeyFileException(file, "PBFT key file " + file + " is not a regular file");
        }
        OwnerOnlyFiles.checkOwnerOnly(file, "PBFT key file", PbftKeyFileException::new);
        long size = Files.size(file);
        if (size > MAX_FILE_BYTES) {
            throw new PbftKeyFileException(file, "PBFT key file " + file + " is " + size + " bytes, more than a key file's "
                    + MAX_FILE_BYTES + ": not a PBFT key file");
        }
        ReplicaKeyFile keys = ReplicaKeyFile.parse(file, Files.readAllBytes(file), replica, replicas, pillars);
        checkSameGeneration(keysDir, file, keys);
        return keys.toKeys();
    }

    /**
     * Where the other replicas' files lie beside this one (a cluster on one host), their generation must be
     * this one's. Reads only their generation line, not their secrets; files it cannot read are skipped (on
     * separate hosts a replica has only its own file).
     */
    private static void checkSameGeneration(Path keysDir, Path file, ReplicaKeyFile keys) throws IOException {
        for (int r = 0; r < keys.replicas(); r++) {
            Path other = file(keysDir, r);
            if (r == keys.replica() || !Files.isRegularFile(other) || !Files.isReadable(other)) {
                continue;
            }
            String generation = generationLine(other);
            if (generation != null && !generation.equals(keys.generation())) {
                throw new PbftKeyFileException(file, "PBFT key file " + file + " is of key generation " + keys.generation()
                        + " but " + other + " beside it is of generation " + generation
                        + ": the files come from two key generations; generate all replicas' files anew, together");
            }
        }
    }

    private static String generationLine(Path file) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            for (int i = 0; i < 16; i++) { // the header: generation is the fourth line of a generated file
                String line = in.readLine();
                if (line == null) {
                    return null;
                }
                if (line.startsWith("generation=")) {
                    return line.substring("generation=".length());
                }
            }
        } catch (java.nio.charset.MalformedInputException e) {
            return null; // not a key file; its own load will say so
        }
        return null;
    }

    /** The files named {@code replica-<id>.keys} in {@code dir}, by id. */
    private static List<Path> keyFiles(Path dir) throws IOException {
        Map<Integer, Path> found = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                int id = replicaOf(p);
                if (id >= 0) {
                    found.put(id, p);
                }
            }
        }
        return new ArrayList<>(found.values());
    }

    private static int replicaOf(Path p) {
        Matcher m = FILE_NAME.matcher(p.getFileName().toString());
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** One generation's contents of every replica's file. */
    private static List<ReplicaKeyFile> material(int replicas, int pillars, SecureRandom random) {
        byte[][][] pairs = new byte[replicas][replicas][];
        for (int i = 0; i < replicas; i++) {
            for (int j = i + 1; j < replicas; j++) {
                pairs[i][j] = secret(random);
                pairs[j][i] = pairs[i][j];
            }
        }
        Map<Long, byte[][]> clients = new TreeMap<>();
        for (long c = 0; c < (long) replicas * pillars; c++) {
            byte[][] keys = new byte[replicas][];
            for (int r = 0; r < replicas; r++) {
                keys[r] = secret(random);
            }
            clients.put(c, keys);
        }
        PublicKey[] publicKeys = new PublicKey[replicas];
        PrivateKey[] privateKeys = new PrivateKey[replicas];
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(PbftKeys.SIGNATURE_ALGORITHM);
            generator.initialize(NamedParameterSpec.ED25519, random);
            for (int r = 0; r < replicas; r++) {
                KeyPair pair = generator.generateKeyPair();
                publicKeys[r] = pair.getPublic();
                privateKeys[r] = pair.getPrivate();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot generate Ed25519 keys", e);
        }
        String generation = ReplicaKeyFile.fingerprint(replicas, pillars, publicKeys);
        List<ReplicaKeyFile> files = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            Map<Long, byte[][]> own = new TreeMap<>();
            for (Map.Entry<Long, byte[][]> e : clients.entrySet()) {
                byte[][] keys = new byte[replicas][];
                for (int s = 0; s < replicas; s++) {
                    if (ReplicaKeyFile.owns(r, pillars, e.getKey()) || s == r) {
                        keys[s] = e.getValue()[s];
                    }
                }
                own.put(e.getKey(), keys);
            }
            files.add(new ReplicaKeyFile(r, replicas, pillars, generation, pairs[r], own, publicKeys.clone(),
                    privateKeys[r]));
        }
        return files;
    }

    private static byte[] secret(SecureRandom random) {
        byte[] key = new byte[KEY_BYTES];
        random.nextBytes(key);
        return key;
    }
}
