package io.psmr.ordering.transport;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A TLS certificate or key file that must not be used, and why: missing, readable by others, not PEM, not signed by
 * the cluster's authority, expired, naming no psmr member, a key not matching its certificate. The message names the
 * file and the problem, so a node can print it and refuse to start.
 */
public final class TlsFileException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path path;

    /** A refusal of {@code path}, explained by {@code message} (which names the path). */
    public TlsFileException(Path path, String message) {
        super(message);
        this.path = path;
    }

    /** The refused file. */
    public Path path() {
        return path;
    }
}
