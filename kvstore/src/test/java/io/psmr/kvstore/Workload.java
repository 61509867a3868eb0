package io.psmr.kvstore;

import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.SummaryBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Seeded random commands and batches for the tests. Not thread-safe: one per thread. */
final class Workload {

    final Random random;
    final int keySpace;
    final int maxValue;

    Workload(long seed, int keySpace, int maxValue) {
        this.random = new Random(seed);
        this.keySpace = keySpace;
        this.maxValue = maxValue;
    }

    static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.UTF_8);
    }

    byte[] randomKey() {
        // A skewed key choice so that batches conflict often: a few hot keys and a long tail.
        int k = random.nextInt(4) == 0 ? random.nextInt(4) : random.nextInt(keySpace);
        return key(k);
    }

    byte[] randomValue() {
        byte[] v = new byte[random.nextInt(maxValue + 1)];
        random.nextBytes(v);
        return v;
    }

    KvCommand command(long client, long seq) {
        return switch (random.nextInt(6)) {
            case 0 -> KvCommand.create(client, seq, randomKey(), randomValue());
            case 1 -> KvCommand.read(client, seq, randomKey());
            case 2 -> KvCommand.update(client, seq, randomKey(), randomValue());
            case 3 -> KvCommand.delete(client, seq, randomKey());
            default -> {
                int n = 1 + random.nextInt(4);
                byte[][] ks = new byte[n][];
                byte[][] vs = new byte[n][];
                for (int i = 0; i < n; i++) {
                    ks[i] = randomKey();
                    vs[i] = randomValue();
                }
                yield KvCommand.multiPut(client, seq, ks, vs);
            }
        };
    }

    static byte[] encode(long proxy, long batchId, List<KvCommand> commands, ConflictDetection detection) {
        return KvCodec.encodeBatch(proxy, batchId, commands, SummaryBuilder.summarize(detection, commands));
    }

    List<KvCommand> commands(long client, long firstSeq, int n) {
        List<KvCommand> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(command(client, firstSeq + i));
        }
        return list;
    }

    /**
     * A batch of {@code n} OPEN_SESSION commands from proxy 98 (whose replies nobody reads). Proposed
     * as instance {@code instance}, it opens the sessions {@link #session(long, long) session(instance, c)}
     * for c = 0 … n−1, since the log assigns session ids from the instance and the command's index.
     */
    static byte[] openSessions(int n, ConflictDetection detection) {
        List<KvCommand> open = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            open.add(KvCommand.openSession(i, 1));
        }
        return encode(98, 1, open, detection);
    }

    /** The id of the session that command {@code index} of the OPEN_SESSION batch at {@code instance} opened. */
    static long session(long instance, long index) {
        return instance * SessionTable.SESSION_ID_STRIDE + index;
    }
}
