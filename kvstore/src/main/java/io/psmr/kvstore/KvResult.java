package io.psmr.kvstore;

import java.util.Arrays;
import java.util.Objects;

/**
 * The result of one command: a status, the value a READ found, and a human-readable detail that
 * names the problem for the error statuses. Every field depends only on delivered data, so every
 * replica produces equal results. Immutable; do not modify the value array.
 *
 * @param status what happened
 * @param value  the value read, for an OK READ; null otherwise
 * @param detail why, for the error statuses; empty otherwise; never null
 */
public record KvResult(KvStatus status, byte[] value, String detail) {

    /** Longest detail kept, in characters; longer ones are cut, so replies stay bounded. */
    public static final int MAX_DETAIL_CHARS = 512;

    private static final KvResult OK = new KvResult(KvStatus.OK, null, "");
    private static final KvResult NOT_FOUND = new KvResult(KvStatus.NOT_FOUND, null, "");
    private static final KvResult EXISTS = new KvResult(KvStatus.EXISTS, null, "");

    /** Validates the fields and bounds the detail. */
    public KvResult {
        Objects.requireNonNull(status, "status");
        detail = detail == null ? "" : detail.length() > MAX_DETAIL_CHARS ? detail.substring(0, MAX_DETAIL_CHARS) : detail;
    }

    /** OK without a value. */
    public static KvResult ok() {
        return OK;
    }

    /** OK with the value read. */
    public static KvResult ok(byte[] value) {
        return new KvResult(KvStatus.OK, Objects.requireNonNull(value, "value"), "");
    }

    /** NOT_FOUND. */
    public static KvResult notFound() {
        return NOT_FOUND;
    }

    /** EXISTS. */
    public static KvResult exists() {
        return EXISTS;
    }

    /** A result with no value and the given status and detail. */
    public static KvResult of(KvStatus status, String detail) {
        return new KvResult(status, null, detail);
    }

    /**
     * The session id in the answer to an OPEN_SESSION.
     *
     * @throws IllegalArgumentException if this is not such an answer
     */
    public long sessionId() {
        if (status != KvStatus.OK || value == null || value.length != 8) {
            throw new IllegalArgumentException("not the answer to an OPEN_SESSION: " + this);
        }
        return java.nio.ByteBuffer.wrap(value).getLong();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvResult r && r.status == status && Arrays.equals(r.value, value) && r.detail.equals(detail);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * status.hashCode() + Arrays.hashCode(value)) + detail.hashCode();
    }

    @Override
    public String toString() {
        return "KvResult[" + status + (value != null ? ", " + value.length + "-byte value" : "")
                + (detail.isEmpty() ? "" : ", " + detail) + "]";
    }
}
