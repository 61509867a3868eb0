package io.psmr.bench.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/**
 * The JSON writing of the load tool, through one Jackson mapper: every character outside ASCII is
 * written as a {@code \\u} escape, so each line is plain ASCII. Thread-safe (the mapper is).
 */
final class Json {

    private static final JsonMapper MAPPER = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    private Json() {
    }

    /** A new empty object; fields keep the order they are put in. */
    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** {@code node} on one line. */
    static String write(ObjectNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e); // a tree of plain values always writes
        }
    }

    /**
     * Bytes as a JSON string: each byte is one character of the same code (ISO-8859-1), so any byte
     * string round-trips; the load generator's keys and values are printable ASCII and read as is.
     */
    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.ISO_8859_1);
    }
}
