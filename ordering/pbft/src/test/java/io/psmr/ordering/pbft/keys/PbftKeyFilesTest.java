package io.psmr.ordering.pbft.keys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.HmacAuthenticator;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PbftMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PbftKeyFilesTest {

    private static final long SEED = Long.getLong("psmr.seed", 42L);
    private static final byte[] MESSAGE = "pre-prepare 7".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path tmp;

    /** A deterministic SecureRandom (SHA1PRNG seeded before first use). */
    static SecureRandom seeded(long seed) {
        try {
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(seed);
            return random;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Path generated() throws IOException {
        Path dir = tmp.resolve("cluster").resolve("keys");
        PbftKeyFiles.generate(dir, 4, 2, seeded(SEED), false);
        return dir;
    }

    private static String refusal(Path dir, int replica, int replicas, int pillars) {
        return assertThrows(PbftKeyFileException.class,
                () -> PbftKeyFiles.load(dir, replica, replicas, pillars), "seed " + SEED).getMessage();
    }

    private static String text(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.US_ASCII);
    }

    private static String value(Path file, String name) throws IOException {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "=(.*)$").matcher(text(file));
        assertTrue(m.find(), name + " in " + file);
        return m.group(1);
    }

    /** Replaces entry {@code name}'s value, keeping the file owner-only. */
    private static void edit(Path file, String name, String value) throws IOException {
        String old = value(file, name);
        Files.writeString(file, text(file).replace(name + "=" + old + "\n", name + "=" + value + "\n"),
                StandardCharsets.US_ASCII);
    }

    private static int lineOf(Path file, String name) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(name + "=")) {
                return i + 1;
            }
        }
        throw new AssertionError(name + " not in " + file);
    }

    @Test
    void roundTripGivesEachReplicaWorkingKeysAndOnlyItsOwnSecrets() throws IOException {
        Path dir = generated();
        Authenticator[] auth = new Authenticator[4];
        PbftKeys[] keys = new PbftKeys[4];
        for (int r = 0; r < 4; r++) {
            keys[r] = PbftKeyFiles.load(dir, r, 4, 2);
            auth[r] = new HmacAuthenticator(keys[r]);
            assertEquals(4, keys[r].replicas());
            assertEquals(Set.of(r), keys[r].signers());
        }
        // Pair MACs: replica 0 MACs, replica 1 verifies; a changed message does not verify.
        byte[] mac = auth[0].mac(0, 1, MESSAGE);
        assertTrue(auth[1].verify(0, 1, MESSAGE, mac));
        assertFalse(auth[1].verify(0, 1, "pre-prepare 8".getBytes(StandardCharsets.US_ASCII), mac));
        assertTrue(auth[0].verify(1, 0, MESSAGE, auth[1].mac(1, 0, MESSAGE)));
        // Signatures: replica 2 signs, replica 3 verifies; replica 0 cannot sign as replica 1.
        byte[] signature = auth[2].sign(2, MESSAGE);
        assertTrue(auth[3].verifySignature(2, MESSAGE, signature));
        assertFalse(auth[3].verifySignature(1, MESSAGE, signature));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> auth[0].sign(1, MESSAGE));
        assertEquals("no signing key for replica 1 (this holder may sign as [0])", e.getMessage());
        // Client lanes: replica r's pillar p is client r·2+p; its requests verify at every replica.
        for (int r = 0; r < 4; r++) {
            for (int p = 0; p < 2; p++) {
                PbftMessage.Request request = PbftMessage.Request.sign(r * 2L + p, 1, MESSAGE, auth[r], 4);
                for (int s = 0; s < 4; s++) {
                    assertTrue(request.verifiedFor(s, auth[s]), "client " + (r * 2 + p) + " at replica " + s);
                }
            }
        }
        // Replica 0 cannot MAC for a client it does not own: its request verifies nowhere else.
        PbftMessage.Request forged = PbftMessage.Request.sign(2, 1, MESSAGE, auth[0], 4);
        assertTrue(Stream.of(1, 2, 3).noneMatch(s -> forged.verifiedFor(s, auth[s])));
        // Replica 0 holds no secret of the pair (2, 3): it cannot MAC as 2 to 3 ...
        assertFalse(auth[3].verify(2, 3, MESSAGE, auth[0].mac(2, 3, MESSAGE)));
        // ... and its file does not contain it.
        assertEquals(value(PbftKeyFiles.file(dir, 2), "pair.3"), value(PbftKeyFiles.file(dir, 3), "pair.2"));
        assertFalse(text(PbftKeyFiles.file(dir, 0)).contains(value(PbftKeyFiles.file(dir, 2), "pair.3")));
        // load without a configuration to check against gives the same keys.
        PbftKeys unchecked = PbftKeyFiles.load(dir, 1);
        assertTrue(new HmacAuthenticator(unchecked).verify(0, 1, MESSAGE, mac));
    }

    @Test
    void filesAreOwnerOnlyAndNothingElseIsLeft() throws IOException {
        Path dir = generated();
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("replica-0.keys", "replica-1.keys", "replica-2.keys", "replica-3.keys"),
                    files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        for (int r = 0; r < 4; r++) {
            assertEquals("rw-------",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(PbftKeyFiles.file(dir, r))));
        }
    }

    @Test
    void refusesAFileReadableOrWritableByOthers() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 1);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals("PBFT key file " + file + " is rw-r--r--: readable or writable by group or others; run chmod 600 "
                + file, refusal(dir, 1, 4, 2));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw--w----"));
        assertEquals("PBFT key file " + file + " is rw--w----: readable or writable by group or others; run chmod 600 "
                + file, refusal(dir, 1, 4, 2));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
        PbftKeyFiles.load(dir, 1, 4, 2); // read-only for the owner is fine
    }

    @Test
    void refusesAMissingFile() throws IOException {
        Path dir = generated();
        Files.delete(PbftKeyFiles.file(dir, 2));
        assertEquals("PBFT key file " + PbftKeyFiles.file(dir, 2)
                + " is missing; a PBFT cluster's keys are written by cluster start", refusal(dir, 2, 4, 2));
        Path nowhere = tmp.resolve("nowhere");
        assertEquals("PBFT key file " + PbftKeyFiles.file(nowhere, 0)
                + " is missing; a PBFT cluster's keys are written by cluster start", refusal(nowhere, 0, 4, 2));
    }

    @Test
    void refusesAnotherFormatOrVersion() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 0);
        edit(file, "format", "psmr-pbft-keys/2");
        assertEquals("PBFT key file " + file + " is of format 'psmr-pbft-keys/2', this psmr reads psmr-pbft-keys/1",
                refusal(dir, 0, 4, 2));
        Files.writeString(file, "{\"replica\": 0}\n");
        assertEquals("PBFT key file " + file + " line 1 is not name=value", refusal(dir, 0, 4, 2));
        Files.writeString(file, "replica=0\n");
        assertEquals("PBFT key file " + file + " has no format entry: not a PBFT key file (expected format="
                + "psmr-pbft-keys/1)", refusal(dir, 0, 4, 2));
        Files.write(file, new byte[] {'f', (byte) 0xC3, (byte) 0xA9, '\n'});
        assertEquals("PBFT key file " + file + " is not ASCII text: not a PBFT key file, or damaged",
                refusal(dir, 0, 4, 2));
    }

    @Test
    void refusesTheFileOfAnotherReplica() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 1);
        Files.copy(PbftKeyFiles.file(dir, 2), file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals("PBFT key file " + file + " holds the keys of replica 2, not of replica 1"
                + " (renamed or copied from another replica?)", refusal(dir, 1, 4, 2));
    }

    @Test
    void refusesAnotherClusterShape() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 1);
        assertEquals("PBFT key file " + file + " is for 4 replicas, the cluster has 7", refusal(dir, 1, 7, 2));
        assertEquals("PBFT key file " + file + " is for 2 pillars per replica, the cluster has 3", refusal(dir, 1, 4, 3));
        edit(file, "replicas", "x4");
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "replicas")
                + ": replicas must be an integer in [1, 64]: 'x4'", refusal(dir, 1, 4, 2));
    }

    @Test
    void refusesTruncatedFiles() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 0);
        String whole = text(file);
        // Cut in the middle of a line: no final newline.
        Files.writeString(file, whole.substring(0, whole.length() - 5));
        assertEquals("PBFT key file " + file + " does not end with a newline: truncated?", refusal(dir, 0, 4, 2));
        // Cut at a line end: the last entry is missing.
        String lastCut = whole.substring(0, whole.lastIndexOf('\n', whole.length() - 2) + 1);
        Files.writeString(file, lastCut);
        assertEquals("PBFT key file " + file + " has no entry signing.private: truncated or edited",
                refusal(dir, 0, 4, 2));
        // A value cut short, even where it still decodes as unpadded base64.
        Files.writeString(file, whole);
        String pair = value(file, "pair.1");
        edit(file, "pair.1", pair.substring(0, pair.length() - 1));
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "pair.1")
                + ": pair.1 is not valid base64: truncated or edited", refusal(dir, 0, 4, 2));
        edit(file, "pair.1", "!!" + pair.substring(2));
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "pair.1")
                + ": pair.1 is not valid base64: truncated or edited", refusal(dir, 0, 4, 2));
    }

    @Test
    void refusesUnknownAndDuplicateEntries() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 0);
        String whole = text(file);
        Files.writeString(file, whole + "pair.9=AAAA\n");
        int last = whole.split("\n", -1).length;
        assertEquals("PBFT key file " + file + " line " + last
                + ": pair.9 is not an entry of a 4-replica, 2-pillar key file", refusal(dir, 0, 4, 2));
        Files.writeString(file, whole + "pair.1=" + value(file, "pair.1") + "\n");
        assertEquals("PBFT key file " + file + " line " + last + ": duplicate entry pair.1 (first on line "
                + lineOf(file, "pair.1") + ")", refusal(dir, 0, 4, 2));
        // A replica does not hold others' keys of a client it does not own.
        Files.writeString(file, whole + "client.2.1=" + value(file, "pair.1") + "\n");
        assertEquals("PBFT key file " + file + " line " + last
                + ": client.2.1 is not an entry of a 4-replica, 2-pillar key file", refusal(dir, 0, 4, 2));
    }

    @Test
    void refusesShortKeys() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 3);
        edit(file, "client.5.3", Base64.getEncoder().encodeToString(new byte[8]));
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "client.5.3")
                + ": client.5.3 is 8 bytes, shorter than the minimum of 16", refusal(dir, 3, 4, 2));
    }

    @Test
    void refusesAPublicKeyThatIsNotEd25519() throws Exception {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 0);
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(256, seeded(SEED));
        edit(file, "signing.public.2", Base64.getEncoder().encodeToString(ec.generateKeyPair().getPublic().getEncoded()));
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "signing.public.2")
                + ": signing.public.2 is not an Ed25519 public key (X.509)", refusal(dir, 0, 4, 2));
        edit(file, "signing.public.2", value(PbftKeyFiles.file(dir, 1), "signing.public.2"));
        edit(file, "signing.private", value(file, "pair.1"));
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "signing.private")
                + ": signing.private is not an Ed25519 private key (PKCS#8)", refusal(dir, 0, 4, 2));
    }

    @Test
    void refusesAPrivateKeyThatDoesNotMatchItsPublicKey() throws IOException {
        Path dir = generated();
        Path file = PbftKeyFiles.file(dir, 1);
        edit(file, "signing.private", value(PbftKeyFiles.file(dir, 2), "signing.private"));
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "signing.private")
                + ": signing.private does not match signing.public.1, the file's own public key", refusal(dir, 1, 4, 2));
    }

    @Test
    void refusesMixedGenerations() throws IOException {
        Path dir = generated();
        Path other = tmp.resolve("other");
        String otherGeneration = PbftKeyFiles.generate(other, 4, 2, seeded(SEED + 1), false);
        String generation = value(PbftKeyFiles.file(dir, 0), "generation");
        assertNotEquals(generation, otherGeneration);
        // A public key swapped in from another generation no longer matches the file's generation.
        Path file = PbftKeyFiles.file(dir, 1);
        String original = text(file);
        edit(file, "signing.public.3", value(PbftKeyFiles.file(other, 0), "signing.public.3"));
        assertEquals("PBFT key file " + file + " line " + lineOf(file, "generation") + ": generation " + generation
                + " does not match the file's public keys (fingerprint "
                + ReplicaKeyFile.fingerprint(4, 2, publicKeysOf(file))
                + "): edited, or assembled from two key generations", refusal(dir, 1, 4, 2));
        Files.writeString(file, original);
        // Replica 2's file from another run of generate, beside the others: both sides refuse by generation.
        Files.copy(PbftKeyFiles.file(other, 2), PbftKeyFiles.file(dir, 2), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals("PBFT key file " + file + " is of key generation " + generation + " but "
                + PbftKeyFiles.file(dir, 2) + " beside it is of generation " + otherGeneration
                + ": the files come from two key generations; generate all replicas' files anew, together",
                refusal(dir, 1, 4, 2));
        assertEquals("PBFT key file " + PbftKeyFiles.file(dir, 2) + " is of key generation " + otherGeneration + " but "
                + PbftKeyFiles.file(dir, 0) + " beside it is of generation " + generation
                + ": the files come from two key generations; generate all replicas' files anew, together",
                refusal(dir, 2, 4, 2));
        // Alone (as on its own host), replica 2's file is consistent in itself and loads.
        Path alone = tmp.resolve("alone");
        Files.createDirectory(alone);
        Files.copy(PbftKeyFiles.file(other, 2), PbftKeyFiles.file(alone, 2));
        assertEquals(Set.of(2), PbftKeyFiles.load(alone, 2, 4, 2).signers());
    }

    private static java.security.PublicKey[] publicKeysOf(Path file) throws IOException {
        java.security.PublicKey[] keys = new java.security.PublicKey[4];
        try {
            java.security.KeyFactory factory = java.security.KeyFactory.getInstance("Ed25519");
            for (int r = 0; r < 4; r++) {
                keys[r] = factory.generatePublic(new java.security.spec.X509EncodedKeySpec(
                        Base64.getDecoder().decode(value(file, "signing.public." + r))));
            }
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
        return keys;
    }

    @Test
    void neverOverwritesWithoutForce() throws IOException {
        Path dir = generated();
        byte[] before = Files.readAllBytes(PbftKeyFiles.file(dir, 0));
        PbftKeyFileException e = assertThrows(PbftKeyFileException.class,
                () -> PbftKeyFiles.generate(dir, 4, 2, seeded(SEED + 1), false));
        assertEquals("PBFT key directory " + dir + " already holds key files [replica-0.keys, replica-1.keys,"
                + " replica-2.keys, replica-3.keys]; refusing to overwrite them without force", e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(PbftKeyFiles.file(dir, 0)));
        // One leftover file is enough to refuse.
        for (int r = 1; r < 4; r++) {
            Files.delete(PbftKeyFiles.file(dir, r));
        }
        assertThrows(PbftKeyFileException.class, () -> PbftKeyFiles.generate(dir, 4, 2, seeded(SEED + 1), false));
        assertArrayEquals(before, Files.readAllBytes(PbftKeyFiles.file(dir, 0)));
    }

    @Test
    void forceRegeneratesAndDropsFilesOfReplicasNoLongerThere() throws IOException {
        Path dir = tmp.resolve("keys");
        String seven = PbftKeyFiles.generate(dir, 7, 1, seeded(SEED), false);
        String four = PbftKeyFiles.generate(dir, 4, 2, seeded(SEED + 1), true);
        assertNotEquals(seven, four);
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(4, files.count());
        }
        for (int r = 0; r < 4; r++) {
            assertEquals(four, value(PbftKeyFiles.file(dir, r), "generation"));
            PbftKeyFiles.load(dir, r, 4, 2);
        }
    }

    @Test
    void sameRandomGivesTheSameFilesNothingDependsOnTime() throws IOException {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        assertEquals(PbftKeyFiles.generate(a, 4, 2, seeded(SEED), false),
                PbftKeyFiles.generate(b, 4, 2, seeded(SEED), false));
        for (int r = 0; r < 4; r++) {
            assertArrayEquals(Files.readAllBytes(PbftKeyFiles.file(a, r)), Files.readAllBytes(PbftKeyFiles.file(b, r)),
                    "replica " + r + ", seed " + SEED);
        }
    }

    @Test
    void tightensAnExistingDirectoryAndRefusesBadArguments() throws IOException {
        Path dir = tmp.resolve("open");
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        PbftKeyFiles.generate(dir, 4, 1, seeded(SEED), false);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        Path plain = tmp.resolve("plain");
        Files.writeString(plain, "x");
        assertEquals("PBFT key directory " + plain + " exists and is not a directory",
                assertThrows(PbftKeyFileException.class,
                        () -> PbftKeyFiles.generate(plain, 4, 1, seeded(SEED), false)).getMessage());
        assertEquals("replicas must be in [1, 64]: 65", assertThrows(IllegalArgumentException.class,
                () -> PbftKeyFiles.generate(dir, 65, 1, seeded(SEED), true)).getMessage());
        assertEquals("pillars must be in [1, 64]: 0", assertThrows(IllegalArgumentException.class,
                () -> PbftKeyFiles.generate(dir, 4, 0, seeded(SEED), true)).getMessage());
    }

    @Test
    void theLargestClusterFitsTheFileLimit() throws IOException {
        Path dir = tmp.resolve("largest");
        PbftKeyFiles.generate(dir, PbftKeyFiles.MAX_REPLICAS, PbftKeyFiles.MAX_PILLARS, seeded(SEED), false);
        long size = Files.size(PbftKeyFiles.file(dir, 63));
        assertTrue(size < PbftKeyFiles.MAX_FILE_BYTES, size + " bytes");
        PbftKeys keys = PbftKeyFiles.load(dir, 63, 64, 64);
        assertEquals(Set.of(63), keys.signers());
        System.out.println("key file sizes: 64 x 64 " + size + " bytes, 4 x 2 "
                + Files.size(generated().resolve("replica-0.keys")) + " bytes");
    }
}
