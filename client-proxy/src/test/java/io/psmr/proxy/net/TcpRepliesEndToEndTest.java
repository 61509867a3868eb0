package io.psmr.proxy.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.kvstore.net.ReplyServer;
import io.psmr.kvstore.net.ReplyServerConfig;
import io.psmr.ordering.LocalSequencer;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.ProxyConfig;
import io.psmr.scheduler.ConflictDetection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two replicas over a local sequencer, each answering through its own {@link ReplyServer}, and a
 * {@link ClientProxy} whose replies come only through a {@link ReplyConnector}: operations from several
 * client threads all complete with the right results, and the replicas end with equal digests.
 */
class TcpRepliesEndToEndTest {

    static final ConflictDetection DETECTION = ConflictDetection.bitmap(4096);
    static final KvLimits LIMITS = KvLimits.defaults().withMaxValueBytes(256).withMaxBatchBytes(64 << 10);
    static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    @Timeout(60)
    void clientsGetTheirAnswersOverTcp() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println("TcpRepliesEndToEndTest seed " + seed);
        int threads = 4;
        int keysPerThread = 20;
        ReplicaConfig base = ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).workers(2).maxPending(64)
                .store(StoreConfig.heap()).build();
        List<ReplyServer> servers = new ArrayList<>();
        List<Replica> replicas = new ArrayList<>();
        LocalSequencer sequencer = LocalSequencer.builder().maxValueBytes(LIMITS.maxBatchBytes()).build();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        ClientProxy proxy = null;
        ReplyConnector connector = null;
        try {
            for (int id = 1; id <= 2; id++) {
                ReplyServer server = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
                servers.add(server);
                replicas.add(Replica.start(base.toBuilder().replicaId(id).build(), sequencer, server));
            }
            sequencer.start();
            ProxyConfig config = ProxyConfig.builder().proxyId(5).detection(DETECTION).limits(LIMITS).build();
            proxy = ClientProxy.start(config, sequencer); // no local router: replies arrive only over TCP
            connector = ReplyConnector.start(config.proxyId(), Map.of(1, servers.get(0).localAddress(), 2, servers.get(1).localAddress()),
                    proxy, ReplyConnectorConfig.defaults());
            assertTrue(connector.awaitConnected(2, 10, TimeUnit.SECONDS), connector.toString());

            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                KvClient client = proxy.newClient();
                Random rnd = new Random(seed + t);
                int thread = t;
                done.add(pool.submit(() -> {
                    int ops = 0;
                    for (int k = 0; k < keysPerThread; k++) {
                        byte[] key = b("t" + thread + ".k" + k);
                        byte[] v1 = b("v1." + rnd.nextInt());
                        byte[] v2 = b("v2." + rnd.nextInt());
                        assertEquals(KvStatus.OK, client.blocking().create(key, v1).status());
                        assertArrayEquals(v1, client.blocking().read(key).value());
                        assertEquals(KvStatus.OK, client.blocking().update(key, v2).status());
                        KvResult read = client.blocking().read(key);
                        assertEquals(KvStatus.OK, read.status());
                        assertArrayEquals(v2, read.value());
                        ops += 4;
                    }
                    return ops;
                }));
            }
            int ops = 0;
            for (Future<Integer> f : done) {
                ops += f.get(50, TimeUnit.SECONDS);
            }
            assertEquals(threads * keysPerThread * 4, ops);

            long last = sequencer.lastInstance();
            for (Replica r : replicas) {
                assertTrue(r.awaitApplied(last, 20, TimeUnit.SECONDS), r.toString());
            }
            assertEquals(replicas.get(0).digest(), replicas.get(1).digest(), "replica digests differ");
            assertEquals(threads * keysPerThread, replicas.get(0).store().size());
            assertEquals(0, proxy.stats().timedOut());
            for (ReplyServer s : servers) {
                assertEquals(0, s.dropped(), s.toString());
                assertTrue(s.routed() >= ops, s + " routed " + s.routed());
            }
        } finally {
            pool.shutdownNow();
            if (connector != null) {
                connector.close();
            }
            if (proxy != null) {
                proxy.close();
            }
            replicas.forEach(Replica::close);
            sequencer.close();
            servers.forEach(ReplyServer::close);
        }
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
