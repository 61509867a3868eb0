package io.psmr.kvstore.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * The transfer container: a zip with STORED (uncompressed) entries, in this order,
 * {@value CheckpointStore#MANIFEST_FILE}, {@value CheckpointStore#STORE_FILE},
 * {@value CheckpointStore#STATE_FILE}. STORED entries carry their size and CRC-32 in the local
 * header, so a receiver knows each size before reading it and the zip reader checks each CRC-32;
 * the manifest's CRC-32C is checked on top. Written from open file channels, so a checkpoint
 * deleted by retention meanwhile is still sent whole (the files live while open).
 */
final class CheckpointArchive {

    /** Entry names, in order. */
    static final List<String> ENTRIES = List.of(CheckpointStore.MANIFEST_FILE, CheckpointStore.STORE_FILE,
            CheckpointStore.STATE_FILE);

    /** Manifests are a few hundred bytes; a larger one is refused before it is read. */
    static final int MAX_MANIFEST_BYTES = 64 * 1024;

    private CheckpointArchive() {
    }

    /** Writes the three files, given as open channels in {@link #ENTRIES} order, as a zip to {@code out}. */
    static void write(OutputStream out, List<FileChannel> files) throws IOException {
        ZipOutputStream zip = new ZipOutputStream(out);
        zip.setMethod(ZipOutputStream.STORED);
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        for (int i = 0; i < ENTRIES.size(); i++) {
            FileChannel ch = files.get(i);
            long size = ch.size();
            CRC32 crc = new CRC32();
            for (long pos = 0; pos < size; ) {
                buf.clear();
                int n = ch.read(buf, pos);
                if (n < 0) {
                    throw new IOException(ENTRIES.get(i) + " shrank while being sent");
                }
                crc.update(buf.array(), 0, n);
                pos += n;
            }
            ZipEntry e = new ZipEntry(ENTRIES.get(i));
            e.setMethod(ZipEntry.STORED);
            e.setSize(size);
            e.setCompressedSize(size);
            e.setCrc(crc.getValue());
            e.setTime(0); // deterministic bytes for equal checkpoints
            zip.putNextEntry(e);
            WritableByteChannel sink = Channels.newChannel(zip);
            for (long pos = 0; pos < size; ) {
                long n = ch.transferTo(pos, size - pos, sink);
                if (n <= 0) {
                    throw new IOException(ENTRIES.get(i) + " shrank while being sent");
                }
                pos += n;
            }
            zip.closeEntry();
        }
        zip.finish();
        zip.flush();
    }

    /** Checks a manifest before the files it describes are read. */
    @FunctionalInterface
    interface ManifestCheck {
        /** @throws IOException naming the problem, to refuse the archive */
        void check(CheckpointManifest manifest) throws IOException;
    }

    /**
     * Reads an archive that {@link #write} wrote: checks the manifest with {@code check}, then copies the store and
     * the state file to {@code storeFile} and {@code stateFile}, checking their lengths and CRC-32C against the
     * manifest. The archive comes from a peer, so anything else is refused.
     *
     * @param where names the source in errors
     * @return the manifest
     * @throws IOException naming {@code where} and the problem, for any archive that is not exactly the three
     *                     entries in order, within their limits, matching the manifest
     */
    static CheckpointManifest read(InputStream in, String where, ManifestCheck check, Path storeFile, Path stateFile)
            throws IOException {
        try {
            ZipInputStream zip = new ZipInputStream(in);
            CheckpointManifest m = CheckpointManifest.parse(readEntry(zip, ENTRIES.get(0), where, MAX_MANIFEST_BYTES),
                    where + ", " + CheckpointStore.MANIFEST_FILE);
            check.check(m);
            copyEntry(zip, CheckpointStore.STORE_FILE, storeFile, m.storeLength(), m.storeCrc(), where);
            copyEntry(zip, CheckpointStore.STATE_FILE, stateFile, m.stateLength(), m.stateCrc(), where);
            if (zip.getNextEntry() != null) {
                throw new IOException(where + ": unexpected entries after " + CheckpointStore.STATE_FILE);
            }
            return m;
        } catch (IllegalArgumentException e) {
            // ZipInputStream refuses an entry name that is not valid UTF-8 this way; a peer's bytes are not a bug here.
            throw new IOException(where + ": the archive is malformed: " + e.getMessage(), e);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith(where)) {
                throw e;
            }
            // ZipInputStream's own refusals may have no message (an EOFException inside an entry's header).
            throw new IOException(where + ": the archive is malformed: " + e, e);
        }
    }

    private static ZipEntry next(ZipInputStream zip, String expected, String where) throws IOException {
        ZipEntry e = zip.getNextEntry();
        if (e == null) {
            throw new IOException(where + ": the archive ends before " + expected);
        }
        if (!e.getName().equals(expected)) {
            throw new IOException(where + ": expected entry " + expected + ", got '" + e.getName() + "'");
        }
        return e;
    }

    private static byte[] readEntry(ZipInputStream zip, String expected, String where, int max) throws IOException {
        ZipEntry e = next(zip, expected, where);
        if (e.getSize() > max) {
            throw new IOException(where + ": " + expected + " has " + e.getSize() + " bytes; the limit is " + max);
        }
        byte[] b = zip.readNBytes(max + 1);
        if (b.length > max) {
            throw new IOException(where + ": " + expected + " exceeds " + max + " bytes");
        }
        return b;
    }

    private static void copyEntry(ZipInputStream zip, String expected, Path file, long length, long crc, String where)
            throws IOException {
        ZipEntry e = next(zip, expected, where);
        if (e.getSize() >= 0 && e.getSize() != length) {
            throw new IOException(where + ": " + expected + " has " + e.getSize() + " bytes, the manifest says " + length);
        }
        CRC32C c = new CRC32C();
        long n = 0;
        byte[] buf = new byte[1 << 16];
        try (OutputStream out = Files.newOutputStream(file)) {
            int r;
            while ((r = zip.read(buf)) > 0) {
                n += r;
                if (n > length) {
                    throw new IOException(where + ": " + expected + " is longer than the manifest's " + length + " bytes");
                }
                c.update(buf, 0, r);
                out.write(buf, 0, r);
            }
        }
        if (n != length) {
            throw new IOException(where + ": " + expected + " has " + n + " bytes, the manifest says " + length);
        }
        if (c.getValue() != crc) {
            throw new IOException(where + ": " + expected + " has CRC-32C " + CheckpointManifest.crcHex(c.getValue())
                    + ", the manifest says " + CheckpointManifest.crcHex(crc));
        }
    }
}
