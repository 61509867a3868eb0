package io.psmr.proxy;

import static io.psmr.proxy.ClientProxyTest.DETECTION;
import static io.psmr.proxy.ClientProxyTest.LIMITS;
import static io.psmr.proxy.ClientProxyTest.b;
import static io.psmr.proxy.ClientProxyTest.get;
import static io.psmr.proxy.ClientProxyTest.proxy;
import static io.psmr.proxy.ClientProxyTest.replicas;
import static io.psmr.proxy.net.Conditions.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvBatch;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.scheduler.SummaryBuilder;
import io.psmr.scheduler.SummaryVerifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The {@link BatchDecorator} contract: what it adds is in the batch and its summary, and its replies go to it alone. */
class BatchDecoratorTest {

    /**
     * Adds one command to every n-th batch (numbers n-1, 2n-1, …): first an OPEN_SESSION for itself,
     * then CREATE(d&lt;batch number&gt;) under that session.
     */
    static class EveryNth implements BatchDecorator {
        final int n;
        final List<Long> sealed = Collections.synchronizedList(new ArrayList<>());
        final Map<Long, KvCommand> added = new ConcurrentHashMap<>(); // by batch number
        final Map<KvCommand, KvResult> results = new ConcurrentHashMap<>();
        long seq;
        volatile long session;

        EveryNth(int n) {
            this.n = n;
        }

        @Override
        public int maxAddedCommands() {
            return 1;
        }

        @Override
        public int maxAddedBytes() {
            return ClientProxy.bytesInBatch(KvCommand.create(Long.MAX_VALUE, Long.MAX_VALUE, b("d" + Long.MAX_VALUE), b("v")));
        }

        @Override
        public void onSeal(SealingBatch batch) {
            sealed.add(batch.number());
            if ((batch.number() + 1) % n != 0) {
                return;
            }
            long s = ++seq;
            KvCommand c = session == 0 ? KvCommand.openSession(batch.proxyId() << 32, s)
                    : KvCommand.create(session, s, b("d" + batch.number()), b("v"));
            batch.add(c);
            added.put(batch.number(), c);
        }

        @Override
        public void onResult(KvCommand command, KvResult result) {
            if (command.op() == KvOp.OPEN_SESSION) {
                session = result.sessionId(); // before the outcome is visible: a test waiting on it sees the session
            }
            assertNull(results.put(command, result), "one outcome per added command: " + command);
        }

        @Override
        public void onFailure(KvCommand command, Throwable error) {
            results.put(command, KvResult.of(KvStatus.REJECTED, "failed: " + error));
        }
    }

    @Test
    void addedCommandsAreInTheBatchAndItsSummaryAndTheirRepliesGoToTheDecorator() throws Exception {
        List<byte[]> proposals = Collections.synchronizedList(new ArrayList<>());
        EveryNth decorator = new EveryNth(3);
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            ClientProxyTest.Interposer recording = new ClientProxyTest.Interposer(c.broadcast(), v -> {
                proposals.add(v);
                return null;
            });
            try (ClientProxy p = ClientProxy.start(proxy().maxBatchCommands(1).build(), recording, c.router(), decorator)) {
                assertEquals(decorator, p.decorator());
                KvClient client = p.newClient();
                // Batch 0 is the client's OPEN_SESSION, batches 1..11 its READs: batches 2, 5, 8, 11 carry an added command.
                for (int i = 1; i <= 11; i++) {
                    KvResult r = get(client.read(b("absent" + i)));
                    assertEquals(KvStatus.NOT_FOUND, r.status(), "the client's own answer, batch " + i);
                    if (i % 3 == 2) {
                        // The added command's reply may trail the client's; batch i+3 must find the session known.
                        int expected = i / 3 + 1;
                        await(() -> decorator.results.size() == expected, 30,
                                () -> expected + " decorator outcomes, got " + decorator.results);
                    }
                }
                ProxyStats s = p.stats();
                assertEquals(12, s.batches(), s.toString());
                assertEquals(12, s.commands(), "client commands only: " + s);
                assertEquals(4, s.addedCommands(), s.toString());
            }
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L), decorator.sealed, "once per new batch, in order");
            assertEquals(4, decorator.results.size(), decorator.results.toString());
            for (Map.Entry<KvCommand, KvResult> e : decorator.results.entrySet()) {
                assertEquals(KvStatus.OK, e.getValue().status(), e.toString());
            }
            assertNotEquals(0, decorator.session, "the decorator's OPEN_SESSION was answered to it");

            assertEquals(12, proposals.size(), "no retries");
            for (int k = 0; k < proposals.size(); k++) {
                KvBatch batch = KvCodec.decodeBatch(proposals.get(k), DETECTION, LIMITS);
                assertEquals(k + 1, batch.batchId());
                KvCommand extra = decorator.added.get((long) k);
                assertNull(SummaryVerifier.findProblem(batch.summary(), batch.commands()), "batch " + k);
                if (extra == null) {
                    assertEquals(1, batch.commands().size(), "batch " + k);
                    continue;
                }
                assertEquals(2, batch.commands().size(), "batch " + k);
                assertEquals(extra, batch.commands().get(1), "the added command comes after the client's, batch " + k);
                if (extra.keyCount() > 0) {
                    // Without the added command's key the replicas' verifier would refuse the batch.
                    SummaryBuilder clientOnly = new SummaryBuilder(DETECTION);
                    clientOnly.add(batch.commands().get(0));
                    assertNotNull(SummaryVerifier.findProblem(clientOnly.build(), batch.commands()), "batch " + k);
                }
            }
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            for (long k : List.of(5L, 8L, 11L)) {
                assertArrayEquals(b("v"), c.replicas().get(0).store().get(b("d" + k)), "batch " + k + "'s added CREATE executed");
            }
            assertEquals(3, c.replicas().get(0).store().size());
        }
    }

    @Test
    void theDecoratorsBoundsAreCheckedAtStartAndEnforcedWhenItAdds() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class, () -> ClientProxy.start(
                    proxy().maxBatchCommands(LIMITS.maxCommandsPerBatch()).build(), c.broadcast(), new EveryNth(1)));
            assertTrue(tooMany.getMessage().contains("exceed the limit of " + LIMITS.maxCommandsPerBatch()
                    + " commands per batch"), tooMany.getMessage());
            BatchDecorator hog = new EveryNth(1) {
                @Override
                public int maxAddedBytes() {
                    return LIMITS.maxBatchBytes();
                }
            };
            IllegalArgumentException noRoom = assertThrows(IllegalArgumentException.class,
                    () -> ClientProxy.start(proxy().build(), c.broadcast(), hog));
            assertTrue(noRoom.getMessage().contains("leaves no room for a client command"), noRoom.getMessage());

            // A decorator that adds more than it declared is a defect: the batch's commands fail, the proxy closes.
            BatchDecorator greedy = new EveryNth(1) {
                @Override
                public void onSeal(SealingBatch batch) {
                    batch.add(KvCommand.openSession(batch.proxyId() << 32, 1));
                    batch.add(KvCommand.openSession(batch.proxyId() << 32, 2));
                }
            };
            try (ClientProxy p = ClientProxy.start(proxy().build(), c.broadcast(), c.router(), greedy)) {
                CompletableFuture<KvResult> f = p.submit(KvCommand.read(1000, 1, b("k")));
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(ProxyClosedException.class, e.getCause());
                assertInstanceOf(IllegalStateException.class, e.getCause().getCause());
                assertTrue(e.getCause().getCause().getMessage().contains("declared at most 1 added command(s) per batch"),
                        e.getCause().getCause().getMessage());
                assertEquals(0, p.stats().batches(), "nothing was proposed");
            }
            assertEquals(0, c.broadcast().lastInstance());
        }
    }

    @Test
    void theDecoratorsReserveCountsAgainstEveryCommandsRoom() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            int reserve = 1024;
            BatchDecorator reserving = new EveryNth(Integer.MAX_VALUE) {
                @Override
                public int maxAddedBytes() {
                    return reserve;
                }
            };
            // A MULTI_PUT of 4 x (32 + 256) bytes fits a 2048-byte batch alone (ClientProxyTest), not beside a 1024-byte reserve.
            byte[][] ks = new byte[4][];
            byte[][] vs = new byte[4][];
            for (int i = 0; i < 4; i++) {
                ks[i] = new byte[32];
                ks[i][0] = (byte) i;
                vs[i] = new byte[256];
            }
            try (ClientProxy p = ClientProxy.start(proxy().build(), c.broadcast(), c.router(), reserving)) {
                KvResult r = get(p.submit(KvCommand.multiPut(1000, 1, ks, vs)));
                assertEquals(KvStatus.TOO_LARGE, r.status());
                assertTrue(r.detail().contains("cannot fit in a batch"), r.detail());
            }
        }
    }
}
