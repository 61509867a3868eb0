package io.psmr.bench.load;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@link HistorySink} that writes each operation as one JSON line ({@link OpRecord#toJson()}) to
 * a file, in completion order. Memory stays bounded: lines go through one buffered writer under a
 * lock. The first write error is kept and thrown by {@link #close()}; later records are dropped.
 * Thread-safe.
 */
public final class JsonLinesHistory implements HistorySink, AutoCloseable {

    private final Path file;
    private final BufferedWriter out;
    private IOException failure; // guarded by this
    private long written; // guarded by this

    /** Creates (or truncates) {@code file}. @throws UncheckedIOException if it cannot be opened */
    public JsonLinesHistory(Path file) {
        this.file = file;
        try {
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write history file " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void record(OpRecord op) {
        if (failure != null) {
            return;
        }
        try {
            out.write(op.toJson());
            out.write('\n');
            written++;
        } catch (IOException e) {
            failure = e;
        }
    }

    /** Lines written so far. */
    public synchronized long written() {
        return written;
    }

    /** Flushes and closes the file. @throws UncheckedIOException for the first write or close error */
    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        if (failure != null) {
            throw new UncheckedIOException("writing history file " + file + " failed: " + failure.getMessage(), failure);
        }
    }
}
