package io.psmr.kvstore.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.ordering.node.NodeStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * A node's {@link NodeStatus} as a file, {@code DIR/status/NAME.json} ({@link ClusterDirectory#statusFile}):
 * written atomically (temporary file, then rename), so a reader never sees half of one.
 *
 * <p>Stateless; any thread.
 */
public final class StatusFile {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StatusFile() {
    }

    /** Writes {@code status} to {@code file} atomically. */
    public static void write(Path file, NodeStatus status) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(tmp, JSON.writeValueAsString(status));
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
}
