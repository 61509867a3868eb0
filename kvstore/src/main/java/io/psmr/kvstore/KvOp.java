package io.psmr.kvstore;

/** The operations of the key-value store, with their one-byte wire codes (see {@code docs/kvstore.md}). */
public enum KvOp {
    /** Insert a key with a value; {@link KvStatus#EXISTS} if the key is present. Writes its key. */
    CREATE(1),
    /** Read a key's value; {@link KvStatus#NOT_FOUND} if absent. Reads its key. */
    READ(2),
    /** Replace a present key's value; {@link KvStatus#NOT_FOUND} if absent. Writes its key. */
    UPDATE(3),
    /** Remove a key; {@link KvStatus#NOT_FOUND} if absent. Writes its key. */
    DELETE(4),
    /** Put several keys (insert or replace), in order; the cross-key command. Writes all its keys. */
    MULTI_PUT(5),
    /**
     * Open a client session: no keys, no values. The replica answers OK with the new session's id
     * (8 bytes, big-endian), which the log assigns; the client then sends its requests under that id.
     * See {@link SessionTable}.
     */
    OPEN_SESSION(6);

    private static final KvOp[] BY_CODE = {null, CREATE, READ, UPDATE, DELETE, MULTI_PUT, OPEN_SESSION};

    private final byte code;

    KvOp(int code) {
        this.code = (byte) code;
    }

    /** The wire code. */
    public byte code() {
        return code;
    }

    /** Whether commands of this operation carry values. */
    public boolean carriesValues() {
        return this == CREATE || this == UPDATE || this == MULTI_PUT;
    }

    /** The operation with wire code {@code code}, or null if none has it. */
    public static KvOp fromCode(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
