package io.psmr.proxy.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * What a running node last said about itself, in {@code DIR/status/NAME.json}. Nodes rewrite it
 * atomically when something changes and at least every {@link #HEARTBEAT_MILLIS} ms; readers trust
 * it only while the pid in it is alive.
 *
 * @param name        the node
 * @param pid         the process that wrote it
 * @param serving     the node has started and serves
 * @param coordinator an acceptor that coordinates (Phase 1 done); false for replicas
 * @param instance    a replica's last delivered instance (0 for acceptors)
 * @param digest      a replica's state digest at {@code instance}, taken when it was idle, or null while busy
 * @param failure     what stopped the node, or null
 * @param updated     when it was written, in epoch milliseconds (for display only)
 */
public record NodeStatus(String name, long pid, boolean serving, boolean coordinator, long instance, Long digest,
                         String failure, long updated) {

    /** How often a node rewrites its status even if nothing changed. */
    public static final long HEARTBEAT_MILLIS = 1000;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Writes {@code file} atomically. */
    public void write(Path file) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(tmp, JSON.writeValueAsString(this));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Reads {@code file}, or empty if it does not exist or is not a status (a node that never wrote one). */
    public static Optional<NodeStatus> read(Path file) {
        try {
            return Optional.of(JSON.readValue(Files.readString(file), NodeStatus.class));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (JsonProcessingException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Whether the process that wrote this is still alive. */
    public boolean alive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
