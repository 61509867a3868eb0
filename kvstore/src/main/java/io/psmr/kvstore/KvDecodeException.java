package io.psmr.kvstore;

/**
 * A batch (or reply) that could not be accepted as bytes: truncated, garbled, over a batch limit, or
 * made under other conflict-detection settings. The verdict depends only on the bytes and the
 * replicated configuration, so every replica reaches the same one, with the same message.
 *
 * <p>If the fixed 18-byte header could be read, {@link #addressed()} is true and the refusal can be
 * answered to {@link #proxyId()} for {@link #batchId()}; the header is not covered by anything but
 * the checksum, so a garbled header may address a proxy that does not exist (such replies are
 * dropped by the router).
 */
public final class KvDecodeException extends Exception {

    private static final long serialVersionUID = 1L;

    private final KvStatus status;
    private final boolean addressed;
    private final long proxyId;
    private final long batchId;

    KvDecodeException(KvStatus status, boolean addressed, long proxyId, long batchId, String message) {
        super(message);
        this.status = status;
        this.addressed = addressed;
        this.proxyId = proxyId;
        this.batchId = batchId;
    }

    /** {@link KvStatus#MALFORMED}, {@link KvStatus#TOO_LARGE} or {@link KvStatus#REJECTED}. */
    public KvStatus status() {
        return status;
    }

    /** Whether the header was read, so that the refusal can be answered. */
    public boolean addressed() {
        return addressed;
    }

    /** The header's proxy id, if {@link #addressed()}. */
    public long proxyId() {
        return proxyId;
    }

    /** The header's batch id, if {@link #addressed()}. */
    public long batchId() {
        return batchId;
    }
}
