package io.psmr.kvstore.checkpoint;

import io.psmr.kvstore.StateDigest;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * What a checkpoint holds, written as {@value CheckpointStore#MANIFEST_FILE} in
 * {@link java.util.Properties} form, one {@code key=value} per line in a fixed order:
 * {@code format}, {@code instance}, {@code store.digest} (16 hex digits, {@link StateDigest}),
 * {@code store.entries}, and for {@value CheckpointStore#STORE_FILE} and
 * {@value CheckpointStore#STATE_FILE} their {@code .length} and {@code .crc32c} (8 hex digits).
 *
 * @param instance    the delivered instance the checkpoint captures
 * @param storeDigest the store's state digest
 * @param entries     the store's entry count
 * @param storeLength length of the store file in bytes
 * @param storeCrc    CRC-32C of the store file
 * @param stateLength length of the state file in bytes
 * @param stateCrc    CRC-32C of the state file
 */
public record CheckpointManifest(long instance, long storeDigest, long entries, long storeLength, long storeCrc,
                                 long stateLength, long stateCrc) {

    /** The manifest format this code writes and reads. */
    public static final int FORMAT = 1;

    /** The manifest as bytes (UTF-8, but only ASCII). Deterministic: no timestamp. */
    public byte[] toBytes() {
        String s = "format=" + FORMAT + "\n"
                + "instance=" + instance + "\n"
                + "store.digest=" + StateDigest.hex(storeDigest) + "\n"
                + "store.entries=" + entries + "\n"
                + CheckpointStore.STORE_FILE + ".length=" + storeLength + "\n"
                + CheckpointStore.STORE_FILE + ".crc32c=" + crcHex(storeCrc) + "\n"
                + CheckpointStore.STATE_FILE + ".length=" + stateLength + "\n"
                + CheckpointStore.STATE_FILE + ".crc32c=" + crcHex(stateCrc) + "\n";
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses a manifest.
     *
     * @param where names the source in errors (a path, or a peer and instance)
     * @throws IOException naming {@code where} and the problem, if a field is missing or malformed
     *                     or the format is not {@link #FORMAT}
     */
    public static CheckpointManifest parse(byte[] bytes, String where) throws IOException {
        Properties p = new Properties();
        try {
            p.load(new StringReader(new String(bytes, StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException e) {
            // Properties refuses a malformed unicode escape this way; a peer's or a disk's bytes are not a bug here.
            throw new IOException(where + ": the manifest is malformed: " + e.getMessage(), e);
        }
        long format = number(p, "format", where, 10);
        if (format != FORMAT) {
            throw new IOException(where + ": manifest format " + format + " is not supported (this code reads " + FORMAT + ")");
        }
        return new CheckpointManifest(
                number(p, "instance", where, 10),
                number(p, "store.digest", where, 16),
                number(p, "store.entries", where, 10),
                number(p, CheckpointStore.STORE_FILE + ".length", where, 10),
                number(p, CheckpointStore.STORE_FILE + ".crc32c", where, 16),
                number(p, CheckpointStore.STATE_FILE + ".length", where, 10),
                number(p, CheckpointStore.STATE_FILE + ".crc32c", where, 16));
    }

    /** A CRC as 8 lower-case hex digits. */
    public static String crcHex(long crc) {
        return String.format("%08x", crc);
    }

    private static long number(Properties p, String key, String where, int radix) throws IOException {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IOException(where + ": the manifest lacks " + key);
        }
        try {
            long n = radix == 16 ? Long.parseUnsignedLong(v.trim(), 16) : Long.parseLong(v.trim());
            if (radix == 10 && n < 0) {
                throw new NumberFormatException("negative");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IOException(where + ": the manifest's " + key + " is not a valid number: '" + v + "'");
        }
    }
}
