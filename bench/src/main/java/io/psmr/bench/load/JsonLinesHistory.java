package io.psmr.bench.load;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link HistorySink} that writes each operation as one JSON line ({@link OpRecordJson}) to a
 * file, in completion order, and {@link #read reads} such a file back. Memory stays bounded: records
 * stream through one Jackson generator (with its own fixed buffer) under a lock, with no tree or
 * string per record. The first write error is kept and thrown by {@link #close()}; later records
 * are dropped. Thread-safe.
 */
public final class JsonLinesHistory implements HistorySink, AutoCloseable {

    private static final ObjectReader TREES = OpRecordJson.MAPPER.readerFor(JsonNode.class);

    private final Path file;
    private final JsonGenerator out;
    private IOException failure; // guarded by this
    private long written; // guarded by this

    /** Creates (or truncates) {@code file}. @throws UncheckedIOException if it cannot be opened */
    public JsonLinesHistory(Path file) {
        this.file = file;
        try {
            this.out = OpRecordJson.FACTORY.createGenerator(Files.newOutputStream(file), JsonEncoding.UTF8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write history file " + file + ": " + e.getMessage(), e);
        }
        out.setRootValueSeparator(null); // each record ends its own line instead
    }

    @Override
    public synchronized void record(OpRecord op) {
        if (failure != null) {
            return;
        }
        try {
            OpRecordJson.write(op, out);
            out.writeRaw('\n');
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

    /**
     * Every record of a history file, in file order. Blank lines are skipped.
     *
     * @throws IllegalArgumentException naming the file, the line and the problem, for a line that is
     *                                  not a history record
     * @throws UncheckedIOException     if the file cannot be read
     */
    public static List<OpRecord> read(Path file) {
        List<OpRecord> records = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int lineNo = 0;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    records.add(OpRecordJson.read(TREES.readTree(line)));
                } catch (JsonProcessingException | IllegalArgumentException e) {
                    String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
                    throw new IllegalArgumentException("history file " + file + " line " + lineNo + ": " + why, e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read history file " + file + ": " + e.getMessage(), e);
        }
        return records;
    }
}
