package io.psmr.bench.load;

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
 * @param detail     the answer's detail text (why a non-OK status, such as FAILED, REJECTED or
 *                   TOO_LARGE, was given), else null
 * @param initial    a READ made before the timed load to learn the key's initial value (see
 *                   {@link LinearizabilityChecker#initialState})
 */
public record OpRecord(int client, long clientId, KvOp op, byte[][] keys, byte[][] values, long invokeNs,
                       long completeNs, KvStatus status, byte[] output, String error, String detail, boolean initial) {

    /** A record of the timed load, without a detail. */
    public OpRecord(int client, long clientId, KvOp op, byte[][] keys, byte[][] values, long invokeNs,
                    long completeNs, KvStatus status, byte[] output, String error) {
        this(client, clientId, op, keys, values, invokeNs, completeNs, status, output, error, null, false);
    }

    /** Whether the operation was answered (with any status). */
    public boolean acknowledged() {
        return status != null;
    }

    /** One JSON object on one line, as the history file holds it ({@link OpRecordJson}). */
    public String toJson() {
        return OpRecordJson.toJson(this);
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
