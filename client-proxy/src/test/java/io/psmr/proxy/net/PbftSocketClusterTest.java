package io.psmr.proxy.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.pbft.EmbeddedPbftCluster;
import io.psmr.kvstore.pbft.PbftStoreNode;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.ordering.pbft.net.PbftProposerClient;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.ReplyTrust;
import io.psmr.scheduler.ConflictDetection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four PBFT replicas × 2 pillars, each a {@link PbftStoreNode} on real sockets (its own Netty transport, proposal
 * port and reply server on ephemeral ports) with keys written by {@link PbftKeyFiles} and loaded per replica; one
 * proxy proposes through a {@link PbftProposerClient} and trusts only f+1 matching replies over
 * {@link ReplyConnector}. Writes and reads complete with the right values; closing the entry replica (also the
 * FIXED leader of every pillar) makes the client move to the next replica and the others change views, and the
 * load goes on; the live replicas end with equal digests.
 */
class PbftSocketClusterTest {

    static final ConflictDetection DETECTION = ConflictDetection.bitmap(4096);
    static final KvLimits LIMITS = KvLimits.defaults().withMaxValueBytes(256).withMaxBatchBytes(64 << 10);
    static final InetSocketAddress ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    @Timeout(90)
    void aProxyInAnotherProcessProposesThroughAnyReplicaAndSurvivesItsEntryReplica(@TempDir Path dir) throws Exception {
        int n = 4;
        int pillars = 2;
        PbftConfig config = EmbeddedPbftCluster.config(1, pillars, LeaderRotation.FIXED);
        Path keys = dir.resolve("keys");
        PbftKeyFiles.generate(keys, n, pillars, new SecureRandom(), false);
        ReplicaConfig base = ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).workers(2).maxPending(64)
                .store(StoreConfig.heap()).build();
        AtomicReferenceArray<InetSocketAddress> table = new AtomicReferenceArray<>(n * pillars);
        List<PbftStoreNode> nodes = new ArrayList<>();
        ClientProxy proxy = null;
        ReplyConnector connector = null;
        PbftProposerClient proposer = null;
        try {
            for (int r = 0; r < n; r++) {
                PbftStoreNode node = PbftStoreNode.start(r, config, PbftKeyFiles.load(keys, r, n, pillars),
                        new PbftStoreNode.Addresses(List.of(ANY, ANY), ANY, ANY), (rep, p) -> table.get(rep * pillars + p),
                        base, 1);
                nodes.add(node);
                for (int p = 0; p < pillars; p++) {
                    table.set(r * pillars + p, node.pillarAddress(p));
                }
            }
            List<InetSocketAddress> proposalPorts = nodes.stream().map(PbftStoreNode::proposalAddress).toList();
            Map<Integer, InetSocketAddress> replyPorts = new LinkedHashMap<>();
            for (PbftStoreNode node : nodes) {
                replyPorts.put(node.replica() + 1, node.replyAddress());
            }
            proposer = PbftProposerClient.start(proposalPorts, 0,
                    PbftProposerClient.Config.defaults(config.maxRequestBytes()).withAckTimeout(Duration.ofSeconds(1)));
            ProxyConfig pc = ProxyConfig.builder().proxyId(7).detection(DETECTION).limits(LIMITS)
                    .retryTimeout(Duration.ofSeconds(2)).maxRetries(20)
                    .replyTrust(ReplyTrust.matching(1, List.of(1, 2, 3, 4))).build();
            proxy = ClientProxy.start(pc, proposer);
            connector = ReplyConnector.start(pc.proxyId(), replyPorts, proxy, ReplyConnectorConfig.defaults());
            assertTrue(connector.awaitConnected(n, 10, TimeUnit.SECONDS), connector.toString());

            KvClient client = proxy.newClient();
            for (int k = 0; k < 20; k++) {
                writeAndRead(client, "a" + k);
            }
            assertEquals(0, proposer.entryReplica(), "no reason to leave replica 0 yet");

            nodes.get(0).close(); // the entry replica, and the FIXED leader of both pillars in view 0
            for (int k = 0; k < 20; k++) {
                writeAndRead(client, "b" + k);
            }
            assertTrue(proposer.entryReplica() != 0, "the client still proposes through the closed replica");
            for (int p = 0; p < pillars; p++) {
                long view = nodes.get(1).status().pillars().get(p).view();
                assertTrue(view >= 1, "pillar " + p + " of replica 1 is still in view " + view);
            }

            List<PbftStoreNode> live = nodes.subList(1, n);
            long last = live.stream().mapToLong(x -> x.broadcast().lastInstance()).max().orElseThrow();
            for (PbftStoreNode node : live) {
                assertTrue(node.store().awaitApplied(last, 20, TimeUnit.SECONDS), node.toString());
            }
            List<Long> digests = live.stream().map(x -> x.store().digest()).toList();
            assertEquals(1, digests.stream().distinct().count(), "digests differ: " + digests);
            assertEquals(40, live.get(0).store().store().size());
            for (PbftStoreNode node : live) {
                assertTrue(node.failure().isEmpty(), node + " failed: " + node.failure());
            }
        } finally {
            if (connector != null) {
                connector.close();
            }
            if (proxy != null) {
                proxy.close();
            }
            if (proposer != null) {
                proposer.close();
            }
            nodes.forEach(PbftStoreNode::close);
        }
    }

    private static void writeAndRead(KvClient client, String key) throws Exception {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = ("v-" + key).getBytes(StandardCharsets.UTF_8);
        assertEquals(KvStatus.OK, client.blocking().create(k, v).status(), key);
        KvResult read = client.blocking().read(k);
        assertEquals(KvStatus.OK, read.status(), key);
        assertArrayEquals(v, read.value(), key);
    }
}
