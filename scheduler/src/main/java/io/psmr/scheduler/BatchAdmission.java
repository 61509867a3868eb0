package io.psmr.scheduler;

/**
 * The checks a batch passes at delivery, shared by both schedulers: a summary of the configured
 * mode and size, an instance after the last one, and (optionally) a summary that covers every key.
 *
 * <p>Used only by the delivery thread, under the scheduler's delivery lock.
 */
final class BatchAdmission {

    private final ConflictDetection detection;
    private final boolean verify;
    private boolean hasDelivered;
    private long lastInstance;

    BatchAdmission(ConflictDetection detection, boolean verify) {
        this.detection = detection;
        this.verify = verify;
    }

    /**
     * Checks a batch without recording it; call {@link #recordDelivered} once it is delivered.
     *
     * @return null if the batch may execute, or the reason every replica rejects it
     * @throws IllegalArgumentException if the batch is malformed or out of order
     */
    String check(Batch<?> batch) {
        if (batch == null) {
            throw new IllegalArgumentException("batch is null");
        }
        if (hasDelivered && batch.instance() <= lastInstance) {
            throw new IllegalArgumentException("batch instance " + batch.instance()
                    + " is out of order: the last delivered instance is " + lastInstance);
        }
        detection.requireMatches(batch.summary());
        return verify ? SummaryVerifier.findProblem(batch.summary(), batch.commands()) : null;
    }

    /** Records that {@code batch} was delivered (executed, queued or rejected): its instance is now the last. */
    void recordDelivered(Batch<?> batch) {
        hasDelivered = true;
        lastInstance = batch.instance();
    }
}
