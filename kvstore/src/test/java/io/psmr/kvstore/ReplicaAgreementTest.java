package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.LocalSequencer;
import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.GraphKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Three Chronicle Map replicas under concurrent proposers, with conflicts, MULTI_PUTs and retries,
 * checked against a fourth replica that runs the same delivered sequence sequentially on the heap
 * backend: every reply and every digest must be equal.
 */
class ReplicaAgreementTest {

    static Stream<Arguments> settings() {
        return Stream.of(
                Arguments.of(ConflictDetection.bitmap(1_024_000), GraphKind.INDEXED),
                Arguments.of(ConflictDetection.rwBitmap(4096), GraphKind.INDEXED),
                Arguments.of(ConflictDetection.bitmap(512).withRepresentation(BitmapRepresentation.DENSE), GraphKind.MONITOR),
                Arguments.of(ConflictDetection.keysHashed(), GraphKind.INDEXED));
    }

    @ParameterizedTest
    @MethodSource("settings")
    void replicasAgreeWithEachOtherAndWithSequentialExecution(ConflictDetection detection, GraphKind graph) throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println("replicasAgree " + detection + " " + graph + " seed=" + seed);
        ReplicaConfig config = ReplicaConfig.builder().detection(detection).graph(graph).workers(3).maxPending(32)
                .store(ReplicaTest.STORE).replyCacheWindow(32).build();
        int proxies = 4;
        int batchesPerProxy = 120;
        try (EmbeddedCluster c = EmbeddedCluster.start(3, config,
                LocalSequencer.builder().retainedInstances(64).maxValueBytes(config.limits().maxBatchBytes()))) {
            ReplyCollector replies = new ReplyCollector();
            ReplicaConfig oracleConfig = config.toBuilder().replicaId(99).sequential(true).store(StoreConfig.heap()).build();
            try (Replica oracle = Replica.start(oracleConfig, c.broadcast(), c.router())) {
                List<Thread> threads = new ArrayList<>();
                List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
                List<long[]> retries = Collections.synchronizedList(new ArrayList<>());
                // Sessions for every client id proxy * 100 + client, opened by instance 1.
                assertEquals(1, c.broadcast().propose(Workload.openSessions(100 * proxies + 3, detection)).get());
                for (int p = 1; p <= proxies; p++) {
                    long proxy = p;
                    c.router().register(proxy, replies);
                    long proxySeed = seed + p;
                    threads.add(new Thread(() -> {
                        try {
                            runProxy(c.broadcast(), proxy, proxySeed, batchesPerProxy, detection, retries);
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }, "proxy-" + p));
                }
                threads.forEach(Thread::start);
                for (Thread t : threads) {
                    t.join();
                }
                assertTrue(errors.isEmpty(), () -> "seed " + seed + ": " + errors);
                long last = c.broadcast().lastInstance();
                assertTrue(c.awaitApplied(last, 60, TimeUnit.SECONDS), "seed " + seed);
                assertTrue(oracle.awaitApplied(last, 60, TimeUnit.SECONDS), "seed " + seed);

                List<Long> digests = new ArrayList<>(c.digests());
                digests.add(oracle.digest());
                assertEquals(1, digests.stream().distinct().count(), "digests differ, seed " + seed + ": " + digests);
                Map<List<Long>, KvResult> expected = replies.of(99);
                for (int r = 1; r <= 3; r++) {
                    assertEquals(expected.size(), replies.of(r).size(), "replica " + r + " reply count, seed " + seed);
                    for (Map.Entry<List<Long>, KvResult> e : expected.entrySet()) {
                        assertEquals(e.getValue(), replies.of(r).get(e.getKey()),
                                "replica " + r + " differs from sequential execution at " + e.getKey() + ", seed " + seed);
                    }
                }
                assertTrue(replies.repeated.isEmpty(), "a command was answered twice by one replica: " + replies.repeated);
                // A retried batch's commands answer as the first time, or as too old; never re-executed.
                for (long[] retry : retries) {
                    long proxy = retry[0];
                    long original = retry[1];
                    long again = retry[2];
                    for (int i = 0; ; i++) {
                        KvResult first = expected.get(ReplyCollector.id(proxy, original, i));
                        if (first == null) {
                            break;
                        }
                        KvResult second = expected.get(ReplyCollector.id(proxy, again, i));
                        assertTrue(second.equals(first) || second.status() == KvStatus.REJECTED,
                                "retry of " + proxy + "/" + original + " command " + i + ": " + first + " then " + second
                                        + ", seed " + seed);
                    }
                }
                long duplicates = c.replicas().get(0).stats().duplicates();
                assertTrue(retries.isEmpty() || duplicates > 0, "retries produced no duplicates, seed " + seed);
                for (Replica r : c.replicas()) {
                    assertEquals(duplicates, r.stats().duplicates());
                    assertEquals(oracle.stats().commandsExecuted(), r.stats().commandsExecuted());
                }
            }
        }
    }

    /** One proxy: batches of commands from its few clients, sometimes retrying an earlier batch under a new id. */
    private static void runProxy(LocalSequencer seq, long proxy, long seed, int batches, ConflictDetection detection,
                                 List<long[]> retries) throws Exception {
        Random random = new Random(seed);
        Workload w = new Workload(seed, 200, 48);
        long[] nextSeq = new long[3];
        List<List<KvCommand>> sent = new ArrayList<>();
        long batchId = 0;
        while (batchId < batches) {
            batchId++;
            List<KvCommand> commands;
            if (!sent.isEmpty() && random.nextInt(8) == 0) {
                int which = random.nextInt(Math.min(sent.size(), 4));
                commands = sent.get(sent.size() - 1 - which);
                retries.add(new long[] {proxy, sent.size() - which, batchId});
                sent.add(commands);
            } else {
                int n = 1 + random.nextInt(16);
                commands = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    int client = random.nextInt(nextSeq.length);
                    commands.add(w.command(Workload.session(1, proxy * 100 + client), ++nextSeq[client]));
                }
                sent.add(commands);
            }
            seq.propose(Workload.encode(proxy, batchId, commands, detection)).get();
        }
    }
}
