package io.psmr.kvstore;

/** The status of a command's result, with its one-byte wire code. */
public enum KvStatus {
    /** Done; a READ carries the value. */
    OK(0),
    /** READ, UPDATE or DELETE of an absent key. */
    NOT_FOUND(1),
    /** CREATE of a present key. */
    EXISTS(2),
    /** The command (or the whole batch) breaks a configured {@link KvLimits limit}; nothing was executed. */
    TOO_LARGE(3),
    /** The batch's bytes could not be decoded; nothing in it was executed. */
    MALFORMED(4),
    /**
     * Refused before execution: the batch's conflict summary misses a key or was made under other
     * conflict-detection settings, or the request is older than the client's reply-cache window.
     */
    REJECTED(5),
    /**
     * The service reported a deterministic failure ({@link io.psmr.scheduler.DeterministicFailure}).
     * The key-value service declares none today, so a replica never answers it; any other failure
     * of the store stops the replica instead (fail-stop).
     */
    FAILED(6),
    /**
     * The write would take the store past its replicated {@link StoreCapacity} (entries or bytes);
     * nothing was executed. Decided in delivery order from replicated counters, so every replica
     * refuses the same commands.
     */
    FULL(7),
    /**
     * The request names a session that is not open: it expired (idle too many instances), was
     * evicted to make room, or was never opened. Nothing was executed now; whether an earlier copy of
     * the request executed before the session ended is unknown. Open a new session.
     */
    SESSION_EXPIRED(8);

    private static final KvStatus[] BY_CODE = values();

    private final byte code;

    KvStatus(int code) {
        this.code = (byte) code;
    }

    /** The wire code. */
    public byte code() {
        return code;
    }

    /** The status with wire code {@code code}, or null if none has it. */
    public static KvStatus fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
