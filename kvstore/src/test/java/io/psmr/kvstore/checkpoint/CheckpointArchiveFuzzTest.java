package io.psmr.kvstore.checkpoint;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link CheckpointArchive#read}, which unpacks a checkpoint sent by a peer for state transfer. Property:
 * the archive is either refused with an {@link IOException} naming the problem, or gives a manifest and two files
 * that, archived again with {@link CheckpointArchive#write} and read back, give the same manifest and files (decode,
 * encode, decode). A zip is not canonical (extra fields, data descriptors, comments), so the input's bytes are not
 * compared.
 */
class CheckpointArchiveFuzzTest {

    private static final Path DIR;

    static {
        try {
            DIR = Files.createTempDirectory("psmr-archive-fuzz");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void read(byte[] archive) throws IOException {
        Path store = DIR.resolve("store");
        Path state = DIR.resolve("state");
        CheckpointManifest m;
        try {
            m = CheckpointArchive.read(new ByteArrayInputStream(archive), "peer", manifest -> { }, store, state);
        } catch (IOException e) {
            assertNotNull(e.getMessage());
            return;
        }
        Path manifest = DIR.resolve("manifest");
        Files.write(manifest, m.toBytes());
        byte[] again = archive(manifest, store, state);
        Path store2 = DIR.resolve("store2");
        Path state2 = DIR.resolve("state2");
        assertEquals(m, CheckpointArchive.read(new ByteArrayInputStream(again), "again", x -> { }, store2, state2));
        assertArrayEquals(Files.readAllBytes(store), Files.readAllBytes(store2));
        assertArrayEquals(Files.readAllBytes(state), Files.readAllBytes(state2));
    }

    private static byte[] archive(Path manifest, Path store, Path state) throws IOException {
        List<FileChannel> channels = new ArrayList<>();
        try {
            for (Path p : List.of(manifest, store, state)) {
                channels.add(FileChannel.open(p, StandardOpenOption.READ));
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CheckpointArchive.write(out, channels);
            return out.toByteArray();
        } finally {
            for (FileChannel c : channels) {
                c.close();
            }
        }
    }

    private static long crc32c(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    static List<byte[]> seeds() throws IOException {
        List<byte[]> seeds = new ArrayList<>();
        byte[][][] contents = {{"store bytes".getBytes(StandardCharsets.US_ASCII), {1, 0, 0, 0, 2, 3}}, {{}, {}}};
        for (byte[][] c : contents) {
            Path store = DIR.resolve("seed-store");
            Path state = DIR.resolve("seed-state");
            Path manifest = DIR.resolve("seed-manifest");
            Files.write(store, c[0]);
            Files.write(state, c[1]);
            Files.write(manifest, new CheckpointManifest(42, 0x0123456789abcdefL, 3, c[0].length, crc32c(c[0]),
                    c[1].length, crc32c(c[1])).toBytes());
            seeds.add(archive(manifest, store, state));
        }
        return seeds;
    }

    @Test
    void realArchivesHoldTheProperty() throws IOException {
        for (byte[] seed : seeds()) {
            read(seed);
            // A real archive must be read, or the property would hold vacuously.
            CheckpointArchive.read(new ByteArrayInputStream(seed), "seed", m -> { }, DIR.resolve("s"), DIR.resolve("t"));
        }
        FuzzSeeds.writeIfAsked(getClass(), "read", seeds());
    }

    /** ZipInputStream throws IllegalArgumentException for an entry name that is not UTF-8; a peer's archive is refused. */
    @Test
    void anEntryNameThatIsNotUtf8IsRefusedAsMalformed() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry("xx"));
            zip.closeEntry();
        }
        byte[] archive = bytes.toByteArray();
        archive[30] = (byte) 0xff; // the first byte of the name in the local header
        archive[31] = (byte) 0xfe;
        IOException e = assertThrows(IOException.class, () -> CheckpointArchive.read(new ByteArrayInputStream(archive),
                "peer", m -> { }, DIR.resolve("s"), DIR.resolve("t")));
        assertTrue(e.getMessage().startsWith("peer: "), e.getMessage());
    }
}
