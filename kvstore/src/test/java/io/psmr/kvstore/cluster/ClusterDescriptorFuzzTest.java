package io.psmr.kvstore.cluster;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link ClusterDescriptor#read}, the reader of {@code cluster.json} that every node starts from. Property:
 * the file is either refused with an {@link IllegalArgumentException} naming the file and the problem, or read to
 * a descriptor that, written and read again, is equal (decode, encode, decode). JSON has many spellings of one
 * value (whitespace, key order, escapes), so the file's bytes are not compared.
 */
class ClusterDescriptorFuzzTest {

    private static final Path DIR;

    static {
        try {
            DIR = Files.createTempDirectory("psmr-cluster-fuzz");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void read(byte[] json) throws IOException {
        Path dir = DIR.resolve("in");
        Files.createDirectories(dir);
        Files.write(dir.resolve(ClusterDescriptor.FILE), json);
        ClusterDescriptor c;
        try {
            c = ClusterDescriptor.read(dir);
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage());
            return;
        }
        Path again = DIR.resolve("again");
        Files.createDirectories(again);
        c.write(again);
        assertEquals(c, ClusterDescriptor.read(again));
    }

    static List<byte[]> seeds() {
        return List.of(ClusterDescriptorTest.sample().toJson().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void validFilesHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            read(seed);
        }
        FuzzSeeds.writeIfAsked(getClass(), "read", seeds());
    }

    /** Files.readString refuses bytes that are not UTF-8 with an IOException; that is a bad file, not an I/O error. */
    @Test
    void aFileThatIsNotUtf8IsRefusedAsInvalid() throws IOException {
        Path dir = DIR.resolve("latin1");
        Files.createDirectories(dir);
        Files.write(dir.resolve(ClusterDescriptor.FILE), new byte[] {'{', '"', (byte) 0xe9, '"', '}'});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterDescriptor.read(dir));
        assertTrue(e.getMessage().contains("not UTF-8"), e.getMessage());
    }
}
