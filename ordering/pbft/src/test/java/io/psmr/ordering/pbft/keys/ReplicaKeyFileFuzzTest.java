package io.psmr.ordering.pbft.keys;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link ReplicaKeyFile#parse}, the reader of a PBFT replica's key file. Property: the bytes are either
 * refused with a {@link PbftKeyFileException} naming the file and the problem, or parse to keys whose text parses
 * to the same text again (decode, encode, decode). The text is not canonical: comments and blank lines are skipped
 * and entries may come in any order, so the file itself is not compared. docs/fuzzing.md.
 */
class ReplicaKeyFileFuzzTest {

    private static final Path FILE = Path.of("replica-0.keys");

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void parse(byte[] bytes) {
        ReplicaKeyFile keys;
        try {
            keys = ReplicaKeyFile.parse(FILE, bytes, 0, 0, 0);
        } catch (PbftKeyFileException e) {
            assertNotNull(e.getMessage());
            return;
        }
        String text = keys.toText();
        try {
            assertEquals(text, ReplicaKeyFile.parse(FILE, text.getBytes(StandardCharsets.US_ASCII), 0, 0, 0).toText());
        } catch (PbftKeyFileException e) {
            throw new AssertionError("the text of parsed keys is refused: " + e.getMessage(), e);
        }
    }

    /** Replica 0's files of a 4-replica, 1-pillar and a 1-replica, 2-pillar cluster, from fixed randomness. */
    static List<byte[]> seeds() {
        try {
            Path dir = Files.createTempDirectory("psmr-key-seeds");
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(23);
            PbftKeyFiles.generate(dir.resolve("a"), 4, 1, random, false);
            PbftKeyFiles.generate(dir.resolve("b"), 1, 2, random, false);
            return List.of(Files.readAllBytes(PbftKeyFiles.file(dir.resolve("a"), 0)),
                    Files.readAllBytes(PbftKeyFiles.file(dir.resolve("b"), 0)));
        } catch (IOException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void generatedFilesHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            parse(seed);
            assertEquals(new String(seed, StandardCharsets.US_ASCII),
                    assertParses(seed).toText(), "a generated file is its own canonical text");
        }
        FuzzSeeds.writeIfAsked(getClass(), "parse", seeds());
    }

    private static ReplicaKeyFile assertParses(byte[] bytes) {
        try {
            return ReplicaKeyFile.parse(FILE, bytes, 0, 0, 0);
        } catch (PbftKeyFileException e) {
            throw new UncheckedIOException(e);
        }
    }
}
