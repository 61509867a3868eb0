package io.psmr.kvstore.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/** Lengths, CRC-32C and fsync of checkpoint files. */
final class FileChecks {

    private FileChecks() {
    }

    /** The CRC-32C of a whole file. */
    static long crc32c(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (ch.read(buf) >= 0) {
                buf.flip();
                crc.update(buf);
                buf.clear();
            }
        }
        return crc.getValue();
    }

    /** Forces a file's contents to disk. */
    static void fsync(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /**
     * Forces a directory's entries (a rename, a new file) to disk. Where the platform cannot open a
     * directory for syncing, this is skipped: the rename is still atomic, only its durability is
     * left to the file system.
     */
    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            if (!System.getProperty("os.name", "").toLowerCase().contains("win")) {
                throw e;
            }
        }
    }
}
