package io.psmr.bench.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The JSON form of an {@link OpRecord}, one object per history line, written with Jackson's
 * streaming generator (no tree per record: it is on the load clients' path) and read back from a
 * Jackson tree. Fields: {@code client, client_id, op, key, value} (the input: for MULTI_PUT the
 * first pair, with every pair in {@code keys} and {@code values}), {@code invoke_ns},
 * {@code complete_ns}, {@code status} (the status's {@link KvStatus#name()}, or {@code "UNKNOWN"}
 * when there was no answer, with {@code error}), {@code output} (a READ's value or null),
 * {@code detail} when the answer carried one, and {@code "initial": true} on the reads made before
 * the timed load. Keys and values are strings, one character per byte (ISO-8859-1), written as
 * ASCII with {@code \\u} escapes beyond it. Stateless and thread-safe.
 */
public final class OpRecordJson {

    /** Writes every character outside ASCII as an escape, so each line is plain ASCII. */
    static final JsonFactory FACTORY = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    /** Reads history lines into trees; a line with anything after its object is an error. */
    static final ObjectMapper MAPPER = JsonMapper.builder(FACTORY).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private static final String UNKNOWN = "UNKNOWN";

    private OpRecordJson() {
    }

    /** Writes {@code r} as one object (without a line end) to {@code g}. */
    public static void write(OpRecord r, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("client", r.client());
        g.writeNumberField("client_id", r.clientId());
        g.writeStringField("op", r.op().name());
        g.writeStringField("key", OpRecord.text(r.keys()[0]));
        g.writeStringField("value", r.values() == null ? null : OpRecord.text(r.values()[0]));
        if (r.op() == KvOp.MULTI_PUT) {
            writeTexts(g, "keys", r.keys());
            writeTexts(g, "values", r.values());
        }
        g.writeNumberField("invoke_ns", r.invokeNs());
        g.writeNumberField("complete_ns", r.completeNs());
        g.writeStringField("status", r.status() == null ? UNKNOWN : r.status().name());
        g.writeStringField("output", OpRecord.text(r.output()));
        if (r.error() != null) {
            g.writeStringField("error", r.error());
        }
        if (r.detail() != null && !r.detail().isEmpty()) {
            g.writeStringField("detail", r.detail());
        }
        if (r.initial()) {
            g.writeBooleanField("initial", true);
        }
        g.writeEndObject();
    }

    private static void writeTexts(JsonGenerator g, String name, byte[][] items) throws IOException {
        g.writeArrayFieldStart(name);
        for (byte[] b : items) {
            g.writeString(OpRecord.text(b));
        }
        g.writeEndArray();
    }

    /** {@code r} as one line of JSON. */
    public static String toJson(OpRecord r) {
        StringWriter s = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(s)) {
            write(r, g);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return s.toString();
    }

    /**
     * The record one history object describes.
     *
     * @throws IllegalArgumentException naming the field, if a field is missing or of the wrong form
     */
    public static OpRecord read(JsonNode o) {
        if (!o.isObject()) {
            throw new IllegalArgumentException("a history record must be a JSON object, got " + o.getNodeType());
        }
        KvOp op = parse(KvOp.class, text(o, "op", true), "op");
        byte[][] keys;
        byte[][] values = null;
        if (op == KvOp.MULTI_PUT) {
            keys = texts(o, "keys");
            values = texts(o, "values");
            if (values.length != keys.length) {
                throw new IllegalArgumentException("a MULTI_PUT has " + keys.length + " keys but " + values.length + " values");
            }
        } else {
            keys = new byte[][] {bytes(text(o, "key", true))};
            String value = text(o, "value", false);
            values = value == null ? null : new byte[][] {bytes(value)};
        }
        String status = text(o, "status", true);
        return new OpRecord(Math.toIntExact(number(o, "client")), number(o, "client_id"), op, keys, values,
                number(o, "invoke_ns"), number(o, "complete_ns"),
                status.equals(UNKNOWN) ? null : parse(KvStatus.class, status, "status"), bytes(text(o, "output", false)),
                text(o, "error", false), text(o, "detail", false), o.path("initial").asBoolean(false));
    }

    private static long number(JsonNode o, String field) {
        JsonNode n = o.get(field);
        if (n == null || !n.canConvertToLong() || !n.isIntegralNumber()) {
            throw new IllegalArgumentException("field '" + field + "' must be an integer, got " + n);
        }
        return n.longValue();
    }

    private static String text(JsonNode o, String field, boolean required) {
        JsonNode n = o.get(field);
        if (n == null || n.isNull()) {
            if (required) {
                throw new IllegalArgumentException("field '" + field + "' is missing");
            }
            return null;
        }
        if (!n.isTextual()) {
            throw new IllegalArgumentException("field '" + field + "' must be a string, got " + n);
        }
        return n.textValue();
    }

    private static byte[][] texts(JsonNode o, String field) {
        JsonNode a = o.get(field);
        if (a == null || !a.isArray()) {
            throw new IllegalArgumentException("field '" + field + "' must be an array of strings, got " + a);
        }
        byte[][] out = new byte[a.size()][];
        for (int i = 0; i < out.length; i++) {
            if (!a.get(i).isTextual()) {
                throw new IllegalArgumentException("field '" + field + "' must be an array of strings, got " + a);
            }
            out[i] = bytes(a.get(i).textValue());
        }
        return out;
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String name, String field) {
        try {
            return Enum.valueOf(type, name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("field '" + field + "' has unknown value '" + name + "'", e);
        }
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
