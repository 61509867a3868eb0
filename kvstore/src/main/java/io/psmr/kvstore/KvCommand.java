package io.psmr.kvstore;

import io.psmr.scheduler.Command;
import java.util.Arrays;
import java.util.Objects;

/**
 * One command of the key-value store, identified for exactly-once execution by the client that
 * issued it and that client's request sequence number.
 *
 * <p>Its conflict footprint ({@link Command}) is its keys: a READ reads its key; CREATE, UPDATE,
 * DELETE and MULTI_PUT write theirs. Made through the factories; immutable once made (the
 * factories do not copy the arrays, so the caller must not modify them afterwards). The factories
 * check structure only; size limits are the {@link KvLimits}' business.
 */
public final class KvCommand implements Command {

    private final KvOp op;
    private final long clientId;
    private final long requestSeq;
    private final byte[][] keys;
    private final byte[][] values;

    private KvCommand(KvOp op, long clientId, long requestSeq, byte[][] keys, byte[][] values) {
        this.op = op;
        this.clientId = clientId;
        this.requestSeq = requestSeq;
        this.keys = keys;
        this.values = values;
        if (requestSeq < 1) {
            throw new IllegalArgumentException("request sequence numbers start at 1, got " + requestSeq);
        }
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == null || keys[i].length == 0) {
                throw new IllegalArgumentException(op + " key " + i + " is " + (keys[i] == null ? "null" : "empty"));
            }
            if (values != null && values[i] == null) {
                throw new IllegalArgumentException(op + " value " + i + " is null");
            }
        }
    }

    /** CREATE(key, value): insert, failing with EXISTS if present. */
    public static KvCommand create(long clientId, long requestSeq, byte[] key, byte[] value) {
        return new KvCommand(KvOp.CREATE, clientId, requestSeq, new byte[][] {key}, new byte[][] {value});
    }

    /** READ(key). */
    public static KvCommand read(long clientId, long requestSeq, byte[] key) {
        return new KvCommand(KvOp.READ, clientId, requestSeq, new byte[][] {key}, null);
    }

    /** UPDATE(key, value): replace, failing with NOT_FOUND if absent. */
    public static KvCommand update(long clientId, long requestSeq, byte[] key, byte[] value) {
        return new KvCommand(KvOp.UPDATE, clientId, requestSeq, new byte[][] {key}, new byte[][] {value});
    }

    /** DELETE(key), failing with NOT_FOUND if absent. */
    public static KvCommand delete(long clientId, long requestSeq, byte[] key) {
        return new KvCommand(KvOp.DELETE, clientId, requestSeq, new byte[][] {key}, null);
    }

    /**
     * MULTI_PUT(k1=v1, …): put each pair in order (a repeated key ends with its last value).
     *
     * @throws IllegalArgumentException if there are no pairs or the arrays differ in length
     */
    public static KvCommand multiPut(long clientId, long requestSeq, byte[][] keys, byte[][] values) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(values, "values");
        if (keys.length == 0) {
            throw new IllegalArgumentException("MULTI_PUT needs at least one key");
        }
        if (keys.length != values.length) {
            throw new IllegalArgumentException("MULTI_PUT has " + keys.length + " keys but " + values.length + " values");
        }
        return new KvCommand(KvOp.MULTI_PUT, clientId, requestSeq, keys, values);
    }

    /**
     * OPEN_SESSION: asks the replicas to open a session; the answer carries its id. {@code clientId}
     * is the caller's own id (any value); only the answer's session id matters afterwards.
     */
    public static KvCommand openSession(long clientId, long requestSeq) {
        return new KvCommand(KvOp.OPEN_SESSION, clientId, requestSeq, new byte[0][], null);
    }

    /** A command of any operation; used by the codec. Single-key operations take exactly one key. */
    static KvCommand of(KvOp op, long clientId, long requestSeq, byte[][] keys, byte[][] values) {
        if (op == KvOp.OPEN_SESSION) {
            if (keys.length != 0 || values != null) {
                throw new IllegalArgumentException("OPEN_SESSION takes no keys and no values");
            }
            return openSession(clientId, requestSeq);
        }
        if (op != KvOp.MULTI_PUT && keys.length != 1) {
            throw new IllegalArgumentException(op + " takes exactly one key, got " + keys.length);
        }
        if (op.carriesValues() != (values != null)) {
            throw new IllegalArgumentException(op + (op.carriesValues() ? " needs values" : " takes no values"));
        }
        return op == KvOp.MULTI_PUT ? multiPut(clientId, requestSeq, keys, values)
                : new KvCommand(op, clientId, requestSeq, keys, values);
    }

    /** The operation. */
    public KvOp op() {
        return op;
    }

    /** The issuing client's session id (see {@link SessionTable}); for OPEN_SESSION, the client's own id. */
    public long clientId() {
        return clientId;
    }

    /** The client's request sequence number, from 1; a retry reuses it. */
    public long requestSeq() {
        return requestSeq;
    }

    /** The key of a single-key command (the first key of a MULTI_PUT); do not modify. */
    public byte[] key() {
        return keys[0];
    }

    /** The value of a CREATE or UPDATE (the first value of a MULTI_PUT), or null; do not modify. */
    public byte[] value() {
        return values == null ? null : values[0];
    }

    /** The {@code i}-th value, or null for READ and DELETE; do not modify. */
    public byte[] value(int i) {
        return values == null ? null : values[i];
    }

    @Override
    public int keyCount() {
        return keys.length;
    }

    @Override
    public byte[] key(int i) {
        return keys[i];
    }

    @Override
    public boolean writes(int i) {
        return op != KvOp.READ;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvCommand c && c.op == op && c.clientId == clientId && c.requestSeq == requestSeq
                && Arrays.deepEquals(c.keys, keys) && Arrays.deepEquals(c.values, values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(op, clientId, requestSeq, Arrays.deepHashCode(keys), Arrays.deepHashCode(values));
    }

    @Override
    public String toString() {
        return op + "[client " + clientId + ", request " + requestSeq + ", " + keys.length + " key(s)]";
    }
}
