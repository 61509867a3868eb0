package io.psmr.ordering.ringpaxos.storage;

import io.psmr.ordering.fuzz.FuzzSeeds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.ProposalId;
import io.psmr.ordering.ringpaxos.StorageChange;
import io.psmr.ordering.ringpaxos.Value;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the replay of an acceptor log ({@link FileAcceptorLog#open}): the decoder of every record an acceptor reads
 * back from disk. The input's first byte chooses how the rest becomes the file after the magic: even, as is (so torn
 * tails, bad lengths and checksums are reached); odd, as records {@code [length:u8][body]} that the test frames with
 * valid checksums (so the fuzzer reaches the record bodies, which a random checksum would hide).
 *
 * <p>Property: opening either fails with an {@link IOException} naming the problem, or restores a storage whose
 * changes, written to a fresh log and replayed, give the same changes again (decode, encode, decode). Files are not
 * compared byte for byte: replay cuts off a torn tail, and the storage keeps only what is still in its window, so
 * the encoding of a file is not canonical.
 */
class FileAcceptorLogFuzzTest {

    private static final int CAPACITY = 64;
    private static final Path ROOT;

    static {
        try {
            ROOT = Files.createTempDirectory("psmr-acceptor-log-fuzz");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void replay(byte[] input) throws IOException {
        Path dir = fresh("a");
        Files.write(dir.resolve(FileAcceptorLog.FILE_NAME), file(input));
        List<StorageChange> changes;
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false)) {
            changes = log.storage().asChanges();
        } catch (IOException e) {
            assertNotNull(e.getMessage());
            return;
        }
        Path again = fresh("b");
        try (FileAcceptorLog log = FileAcceptorLog.open(again, CAPACITY, false)) {
            log.append(changes);
        }
        try (FileAcceptorLog log = FileAcceptorLog.open(again, CAPACITY, false)) {
            assertEquals(changes, log.storage().asChanges());
        }
    }

    /** The log file that {@code input} stands for (see the class comment). */
    private static byte[] file(byte[] input) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(FileAcceptorLog.MAGIC);
        if (input.length == 0 || (input[0] & 1) == 0) {
            out.write(input, Math.min(1, input.length), Math.max(0, input.length - 1));
            return out.toByteArray();
        }
        CRC32C crc = new CRC32C();
        for (int i = 1; i < input.length; ) {
            int length = Math.min(input[i] & 0xff, input.length - i - 1);
            byte[] body = Arrays.copyOfRange(input, i + 1, i + 1 + length);
            ByteBuffer header = ByteBuffer.allocate(FileAcceptorLog.HEADER_BYTES).putInt(length);
            crc.reset();
            crc.update(header.array(), 0, 4);
            header.putInt((int) crc.getValue());
            crc.reset();
            crc.update(body);
            header.putInt((int) crc.getValue());
            out.writeBytes(header.array());
            out.writeBytes(body);
            i += 1 + length;
        }
        return out.toByteArray();
    }

    private static Path fresh(String name) throws IOException {
        Path dir = ROOT.resolve(name);
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(FileAcceptorLog.FILE_NAME));
        return dir;
    }

    /** Real logs, as is and as framed records. */
    static List<byte[]> seeds() throws IOException {
        Path dir = fresh("seed");
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false)) {
            Value v = new Value(new ProposalId(2, 9), new byte[] {1, 2, 3, 4, 5});
            log.append(List.of(new StorageChange.Promised(new Ballot(3, 1)),
                    new StorageChange.Trimmed(4),
                    new StorageChange.Voted(5, new Ballot(3, 1), v),
                    new StorageChange.Decided(5, v),
                    new StorageChange.Decided(6, Value.NOOP)));
        }
        byte[] real = Files.readAllBytes(dir.resolve(FileAcceptorLog.FILE_NAME));
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        raw.write(0);
        raw.write(real, FileAcceptorLog.MAGIC.length, real.length - FileAcceptorLog.MAGIC.length);
        ByteArrayOutputStream framed = new ByteArrayOutputStream();
        framed.write(1);
        ByteBuffer b = ByteBuffer.wrap(real, FileAcceptorLog.MAGIC.length, real.length - FileAcceptorLog.MAGIC.length);
        while (b.hasRemaining()) {
            int length = b.getInt();
            b.position(b.position() + 8);
            framed.write(length);
            framed.write(real, b.position(), length);
            b.position(b.position() + length);
        }
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(raw.toByteArray());
        seeds.add(framed.toByteArray());
        return seeds;
    }

    @Test
    void realLogsHoldTheProperty() throws IOException {
        List<byte[]> seeds = seeds();
        for (byte[] seed : seeds) {
            replay(seed);
        }
        // The framed seed must restore the records, not be refused: else the property would hold vacuously.
        Path dir = fresh("check");
        Files.write(dir.resolve(FileAcceptorLog.FILE_NAME), file(seeds.get(1)));
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false)) {
            assertEquals(6, log.storage().highestDecided());
        }
        FuzzSeeds.writeIfAsked(getClass(), "replay", seeds);
    }
}
