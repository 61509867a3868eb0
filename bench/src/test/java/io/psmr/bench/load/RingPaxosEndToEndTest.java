package io.psmr.bench.load;

import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.ordering.ringpaxos.net.LoopbackRingPaxos;
import io.psmr.ordering.ringpaxos.net.RingPaxosTransportConfig;
import io.psmr.scheduler.SchedulerMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The key-value store over Ring Paxos on loopback sockets, in one JVM: 3 acceptors, 2 replicas
 * (each a {@link Replica} subscribed to its own learner's {@link io.psmr.ordering.ringpaxos.net.RingPaxosBroadcast}),
 * one {@link ClientProxy} proposing through a third adapter that holds the proposer; replies through
 * the in-process {@link LocalReplyRouter}. A closed-loop workload with conflicts (hot-key batches,
 * 16 keys) and MULTI_PUTs, bounded by operations. A third of the way through, the coordinator's node
 * is closed. Checks: every operation answered, acceptor 1 took over, equal digests and stores, and
 * the history linearizable per key.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RingPaxosEndToEndTest {

    private static final int CLIENTS = 32;
    private static final int OPS = 150;
    private static final long WAIT_S = 30;

    @Test
    void replicasOverRingPaxosAgreeAndTheHistoryIsLinearizableAcrossACoordinatorCrash() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed;
        System.out.println("RingPaxosEndToEndTest " + context);
        WorkloadSpec spec = new WorkloadSpec(CLIENTS, 16, 0.3, 0.15, 3, 16, Duration.ofSeconds(60), OPS, seed);
        LoadOptions options = new LoadOptions(2, SchedulerMode.BITMAP_INDEXED, 2, 32, 4, Duration.ZERO, 20, Duration.ofSeconds(5), spec);
        ReplicaConfig rc = LoadRun.replicaConfig(options);
        ProxyConfig pc = LoadRun.proxyConfig(options, rc);
        RingPaxosTransportConfig transport = RingPaxosTransportConfig.defaults().withTickInterval(Duration.ofMillis(5));

        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        LocalReplyRouter router = new LocalReplyRouter();
        List<Replica> replicas = new ArrayList<>();
        AtomicReference<Thread> killer = new AtomicReference<>();
        try (LoopbackRingPaxos rp = LoopbackRingPaxos.start(3, 3, transport)) {
            try {
                for (int id = 1; id <= 2; id++) {
                    replicas.add(Replica.start(rc.toBuilder().replicaId(id).build(), rp.broadcast(id), router));
                }
                assertEquals(0, rp.awaitCoordinator(0, WAIT_S, TimeUnit.SECONDS), "acceptor 0, the lowest id, coordinates");
                AtomicInteger done = new AtomicInteger();
                LoadResult result;
                try (ClientProxy proxy = ClientProxy.start(pc, rp.proposing(), router, LoadRun.hotKeys(options, pc))) {
                    result = LoadGenerator.run(proxy, spec, op -> {
                        history.add(op);
                        if (done.incrementAndGet() == CLIENTS * OPS / 3) {
                            Thread t = new Thread(() -> rp.closeAcceptor(0), "close-coordinator");
                            killer.set(t);
                            t.start();
                        }
                    });
                    assertEquals(0, proxy.stats().timedOut(), context);
                }
                killer.get().join(TimeUnit.SECONDS.toMillis(WAIT_S));
                assertEquals(List.of(1, 2), rp.liveAcceptors(), context);
                assertEquals(1, rp.awaitCoordinator(1, WAIT_S, TimeUnit.SECONDS), "acceptor 1, the lowest live id, took over, " + context);
                assertEquals(1, rp.coordinator(WAIT_S * 1000), context);

                assertEquals(0, result.unanswered(), context);
                assertEquals((long) CLIENTS * OPS, result.acknowledged(), "every operation answered, " + context);
                assertEquals(result.acknowledged(), history.size(), context);
                assertTrue(history.stream().anyMatch(o -> o.op() == KvOp.MULTI_PUT && o.status() == KvStatus.OK), context);

                long last = 0;
                for (int i = 0; i < 3; i++) {
                    last = Math.max(last, rp.broadcast(i).lastInstance());
                }
                assertTrue(last > 0, context);
                for (Replica r : replicas) {
                    assertTrue(r.awaitApplied(last, WAIT_S, TimeUnit.SECONDS), "replica " + r.id() + " applied " + last
                            + ", " + context);
                    assertTrue(r.failure().isEmpty(), "replica " + r.id() + " stopped: " + r.failure() + ", " + context);
                }
                assertEquals(replicas.get(0).digest(), replicas.get(1).digest(), "replica digests differ, " + context);

                List<Map<String, String>> stores = new ArrayList<>();
                for (Replica r : replicas) {
                    Map<String, String> m = new HashMap<>();
                    r.store().forEach((k, v) -> m.put(EndToEndTest.text(k), EndToEndTest.text(v)));
                    stores.add(m);
                }
                assertEquals(stores.get(0), stores.get(1), "replica stores differ, " + context);
                Map<String, String> store = new HashMap<>(stores.get(0));
                store.remove("hot"); // the proxy's hot-key writes are not client operations
                assertTrue(EndToEndTest.checkLastWritesVisible(history, store, context) > 0, context);

                LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, store);
                assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
                assertEquals(16, v.keys(), context);
            } finally {
                replicas.forEach(Replica::close);
            }
        }
    }
}
