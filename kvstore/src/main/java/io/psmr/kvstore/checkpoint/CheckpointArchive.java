package io.psmr.kvstore.checkpoint;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
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
}
