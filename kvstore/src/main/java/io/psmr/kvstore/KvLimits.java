package io.psmr.kvstore;

/**
 * The size limits every replica enforces. Breaking one is answered with a status, never a crash:
 * a command over a per-command limit gets {@link KvStatus#TOO_LARGE} (its batch still runs); a
 * batch over a per-batch limit gets TOO_LARGE for all its commands and executes nothing. Limits
 * are part of the replicated configuration: every replica must use the same ones, or they answer
 * differently.
 *
 * @param maxKeyBytes         longest key, in bytes (default 1,024)
 * @param maxValueBytes       longest value, in bytes (default 16,384)
 * @param maxKeysPerCommand   most key-value pairs in one MULTI_PUT (default 64)
 * @param maxCommandsPerBatch most commands in one batch (default 4,096)
 * @param maxBatchBytes       largest encoded batch, header, summary and checksum included (default 1 MiB)
 */
public record KvLimits(int maxKeyBytes, int maxValueBytes, int maxKeysPerCommand, int maxCommandsPerBatch,
                       int maxBatchBytes) {

    /** Validates the limits: each at least 1. */
    public KvLimits {
        positive("maxKeyBytes", maxKeyBytes);
        positive("maxValueBytes", maxValueBytes);
        positive("maxKeysPerCommand", maxKeysPerCommand);
        positive("maxCommandsPerBatch", maxCommandsPerBatch);
        positive("maxBatchBytes", maxBatchBytes);
    }

    private static void positive(String name, int v) {
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, got " + v);
        }
    }

    /** The defaults listed above. */
    public static KvLimits defaults() {
        return new KvLimits(1024, 16 * 1024, 64, 4096, 1 << 20);
    }

    /** These limits with another key limit. */
    public KvLimits withMaxKeyBytes(int n) {
        return new KvLimits(n, maxValueBytes, maxKeysPerCommand, maxCommandsPerBatch, maxBatchBytes);
    }

    /** These limits with another value limit. */
    public KvLimits withMaxValueBytes(int n) {
        return new KvLimits(maxKeyBytes, n, maxKeysPerCommand, maxCommandsPerBatch, maxBatchBytes);
    }

    /** These limits with another MULTI_PUT size limit. */
    public KvLimits withMaxKeysPerCommand(int n) {
        return new KvLimits(maxKeyBytes, maxValueBytes, n, maxCommandsPerBatch, maxBatchBytes);
    }

    /** These limits with another batch command-count limit. */
    public KvLimits withMaxCommandsPerBatch(int n) {
        return new KvLimits(maxKeyBytes, maxValueBytes, maxKeysPerCommand, n, maxBatchBytes);
    }

    /** These limits with another batch byte limit. */
    public KvLimits withMaxBatchBytes(int n) {
        return new KvLimits(maxKeyBytes, maxValueBytes, maxKeysPerCommand, maxCommandsPerBatch, n);
    }

    /**
     * Checks one command against the per-command limits.
     *
     * @return null if it is within them, or a message naming the limit it breaks
     */
    public String checkCommand(KvCommand c) {
        int n = c.keyCount();
        if (n > maxKeysPerCommand) {
            return c + " has " + n + " keys; the limit is " + maxKeysPerCommand + " keys per command";
        }
        for (int i = 0; i < n; i++) {
            int k = c.key(i).length;
            if (k > maxKeyBytes) {
                return c + ": key " + i + " is " + k + " bytes; the limit is " + maxKeyBytes + " bytes";
            }
            byte[] v = c.value(i);
            if (v != null && v.length > maxValueBytes) {
                return c + ": value " + i + " is " + v.length + " bytes; the limit is " + maxValueBytes + " bytes";
            }
        }
        return null;
    }
}
