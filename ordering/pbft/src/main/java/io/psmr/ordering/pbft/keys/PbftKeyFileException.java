package io.psmr.ordering.pbft.keys;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A PBFT key file (or key directory) that must not be used, and why: missing, readable by others,
 * malformed, of another replica, cluster shape or key generation. The message names the file and the
 * problem, so a node can print it and refuse to start.
 */
public final class PbftKeyFileException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path path;

    /** A refusal of {@code path}, explained by {@code message} (which names the path). */
    public PbftKeyFileException(Path path, String message) {
        super(message);
        this.path = path;
    }

    /** The refused file or directory. */
    public Path path() {
        return path;
    }
}
