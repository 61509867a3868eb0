package io.psmr.ordering.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files only their owner may read or write, for secrets (PBFT keys, TLS private keys): created rw------- (directories
 * rwx------) and checked before use. On a file system without POSIX permissions the checks are skipped and that is
 * logged once per JVM, rather than refusing to work at all. Stateless apart from that flag; thread-safe.
 */
public final class OwnerOnlyFiles {

    /** Makes the exception that refuses a file: the caller's own type, so its users see one kind of refusal. */
    @FunctionalInterface
    public interface Refusal {
        /** An exception refusing {@code path}, explained by {@code message} (which names the path). */
        IOException refuse(Path path, String message);
    }

    private static final Logger LOG = LoggerFactory.getLogger(OwnerOnlyFiles.class);
    /** rw-------. */
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    /** rwx------. */
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private OwnerOnlyFiles() {
    }

    /** Whether {@code path}'s file system has POSIX permissions; logs once when it has not. */
    public static boolean posix(Path path) {
        if (Files.getFileAttributeView(path, PosixFileAttributeView.class) != null) {
            return true;
        }
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("The file system of {} has no POSIX permissions: secret files (PBFT keys, TLS keys) are neither"
                    + " created owner-only nor checked for it; protect them by other means", path);
        }
        return false;
    }

    /**
     * Creates {@code dir} (and missing parents) if absent, then makes it rwx------.
     *
     * @param what    names the directory in a refusal, such as {@code "PBFT key directory"}
     * @param refusal makes the exception thrown when {@code dir} exists and is not a directory
     */
    public static void ownerOnlyDirectory(Path dir, String what, Refusal refusal) throws IOException {
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir)) {
            throw refusal.refuse(dir, what + " " + dir + " exists and is not a directory");
        }
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        boolean posix = posix(parent == null ? dir.toAbsolutePath() : parent);
        if (!Files.isDirectory(dir)) {
            if (posix) {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
            } else {
                Files.createDirectory(dir);
            }
        }
        if (posix) {
            Files.setPosixFilePermissions(dir, DIRECTORY); // also tightens a directory that existed
        }
    }

    /**
     * A new file in {@code dir}, created rw------- (no moment exists when another user could open it),
     * holding {@code bytes}, forced to disk. The caller moves it into place.
     */
    public static Path writeTemporary(Path dir, String prefix, byte[] bytes) throws IOException {
        Path tmp = posix(dir)
                ? Files.createTempFile(dir, prefix, ".tmp", ownerOnlyFile())
                : Files.createTempFile(dir, prefix, ".tmp");
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return tmp;
    }

    /** Makes {@code dir}'s entries (renames) durable where the platform allows it; best effort. */
    public static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            LOG.debug("cannot sync directory {}: {}", dir, e.toString()); // not every platform opens directories
        }
    }

    /**
     * Refuses {@code file} if group or others may read or write it (or execute: any bit beyond the
     * owner's), naming its permissions and the fix.
     *
     * @param what    names the file in the refusal, such as {@code "PBFT key file"}
     * @param refusal makes the exception thrown
     */
    public static void checkOwnerOnly(Path file, String what, Refusal refusal) throws IOException {
        if (!posix(file)) {
            return;
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
        for (PosixFilePermission p : permissions) {
            if (!p.name().startsWith("OWNER_")) {
                throw refusal.refuse(file, what + " " + file + " is "
                        + PosixFilePermissions.toString(permissions)
                        + ": readable or writable by group or others; run chmod 600 " + file);
            }
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> ownerOnlyFile() {
        return PosixFilePermissions.asFileAttribute(FILE);
    }
}
