package io.psmr.proxy.load;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import java.nio.charset.StandardCharsets;

/**
 * One client operation as the load generator saw it: what was invoked, when, and what came back.
 * Times are {@link System#nanoTime()} readings of one JVM. Immutable; do not modify the arrays.
 *
 * @param client     the client's index in the run, 1..clients
 * @param clientId   the client's id on the wire
 * @param op         the operation
 * @param keys       its keys (one, or a MULTI_PUT's keys in order)
 * @param values     its values (CREATE, UPDATE, MULTI_PUT), else null
 * @param invokeNs   just before the request was submitted
 * @param completeNs just after its answer (or failure) was seen
 * @param status     the answer's status, or null if there was no answer (see {@code error}): the
 *                   operation may or may not have taken effect
 * @param output     the value a READ returned, else null
 * @param error      why there was no answer, else null
 */
public record OpRecord(int client, long clientId, KvOp op, byte[][] keys, byte[][] values, long invokeNs,
                       long completeNs, KvStatus status, byte[] output, String error) {

    /** Whether the operation was answered (with any status). */
    public boolean acknowledged() {
        return status != null;
    }

    /**
     * One JSON object on one line: {@code client, op, key, value} (the input: for MULTI_PUT the
     * first pair, with every pair in {@code keys} and {@code values}), {@code invoke_ns},
     * {@code complete_ns}, {@code status} (a {@link KvStatus} name, or {@code "UNKNOWN"} when there
     * was no answer, with {@code error}), and {@code output} (a READ's value or null). Keys and
     * values are strings, one character per byte (ISO-8859-1).
     */
    public String toJson() {
        StringBuilder b = new StringBuilder(160);
        b.append("{\"client\":").append(client)
                .append(",\"client_id\":").append(clientId)
                .append(",\"op\":\"").append(op.name()).append('"')
                .append(",\"key\":").append(Json.bytes(keys[0]))
                .append(",\"value\":").append(Json.bytes(values == null ? null : values[0]));
        if (op == KvOp.MULTI_PUT) {
            b.append(",\"keys\":[");
            for (int i = 0; i < keys.length; i++) {
                b.append(i == 0 ? "" : ",").append(Json.bytes(keys[i]));
            }
            b.append("],\"values\":[");
            for (int i = 0; i < values.length; i++) {
                b.append(i == 0 ? "" : ",").append(Json.bytes(values[i]));
            }
            b.append(']');
        }
        b.append(",\"invoke_ns\":").append(invokeNs)
                .append(",\"complete_ns\":").append(completeNs)
                .append(",\"status\":\"").append(status == null ? "UNKNOWN" : status.name()).append('"')
                .append(",\"output\":").append(Json.bytes(output));
        if (error != null) {
            b.append(",\"error\":").append(Json.quote(error));
        }
        return b.append('}').toString();
    }

    @Override
    public String toString() {
        return toJson();
    }

    /** A key or value as text (one character per byte). */
    public static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.ISO_8859_1);
    }
}
