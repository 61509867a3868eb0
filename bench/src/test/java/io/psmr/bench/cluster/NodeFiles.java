package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.checkpoint.CheckpointStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What process tests read from the files other processes write (logs, checkpoint directories), and waiting on
 * conditions over them. Read-only: the files belong to the node processes.
 */
final class NodeFiles {

    private NodeFiles() {
    }

    /** A condition that may read files (and so throw). */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    /** The newest complete checkpoint in a replica's checkpoint directory, or 0. */
    static long latestCheckpoint(Path checkpoints) throws IOException {
        return CheckpointStore.latestIn(checkpoints).orElse(0);
    }

    /** Whether {@code log} exists and contains {@code text}; false while it cannot be read. */
    static boolean logContains(Path log, String text) {
        try {
            return Files.exists(log) && Files.readString(log).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** The last line of {@code log} that contains {@code text}, or "". */
    static String lastLine(Path log, String text) throws IOException {
        return Files.readAllLines(log).stream().filter(l -> l.contains(text)).reduce((a, b) -> b).orElse("");
    }

    /** The last {@code n} lines of {@code log}, for a failure message. */
    static String tail(Path log, int n) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Polls {@code c} every 100 ms until it holds; fails naming {@code what} and the context after {@code seconds}. */
    static void awaitCondition(String what, Condition c, long seconds, Supplier<String> context) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!c.holds()) {
            assertTrue(System.nanoTime() < deadline, () -> "timed out waiting for " + what + ", " + context.get());
            Thread.sleep(100); // polling files another process writes, bounded by the deadline
        }
    }
}
