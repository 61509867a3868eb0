package io.psmr.bench.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.SealingBatch;
import io.psmr.scheduler.ConflictDetection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The conflict rate's decorator: exactly the requested fraction of batches, and the hot writer's session. */
class HotKeyDecoratorTest {

    private static final KvLimits LIMITS = KvLimits.defaults();
    private static final long PROXY = 7;

    /** A batch as the proxy's sender shows it to a decorator, recording what is added. */
    private static final class Batch implements SealingBatch {
        final long number;
        final List<KvCommand> added = new ArrayList<>();

        Batch(long number) {
            this.number = number;
        }

        @Override
        public long number() {
            return number;
        }

        @Override
        public long proxyId() {
            return PROXY;
        }

        @Override
        public int clientCommands() {
            return 1;
        }

        @Override
        public int added() {
            return added.size();
        }

        @Override
        public void add(KvCommand command) {
            added.add(command);
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvResult sessionOpened(long id) {
        return KvResult.ok(ByteBuffer.allocate(8).putLong(id).array());
    }

    @Test
    void marksExactlyTheRequestedFractionOfEveryPrefix() {
        int n = 1000;
        // percent -> marked among the first 1000 batches
        int[][] cases = {{0, 0}, {1, 10}, {20, 200}, {25, 250}, {37, 370}, {50, 500}, {99, 990}, {100, 1000}};
        for (int[] c : cases) {
            HotKeyDecorator d = HotKeyDecorator.percent(c[0], LIMITS);
            d.onResult(KvCommand.openSession(PROXY << 32, 1), sessionOpened(42)); // writes, not only opens
            long marked = 0;
            List<Long> first = new ArrayList<>();
            for (long k = 0; k < n; k++) {
                Batch batch = new Batch(k);
                d.onSeal(batch);
                assertTrue(batch.added.size() <= d.maxAddedCommands(), "percent " + c[0] + ", batch " + k);
                marked += batch.added.size();
                if (!batch.added.isEmpty() && first.size() < 3) {
                    first.add(k);
                }
                assertEquals((long) Math.floor((k + 1) * (c[0] / 100.0)), marked, "percent " + c[0] + " after " + (k + 1) + " batches");
            }
            assertEquals(c[1], marked, "percent " + c[0]);
            assertEquals(c[1], d.writes(), "percent " + c[0]);
            if (c[0] == 20) {
                assertEquals(List.of(4L, 9L, 14L), first, "evenly spread");
            }
        }
        HotKeyDecorator third = new HotKeyDecorator(1.0 / 3, b("hot"), LIMITS);
        for (long k = 0; k < 999; k++) {
            third.onSeal(new Batch(k));
        }
        assertEquals(333, third.writes());
        assertEquals(0, HotKeyDecorator.percent(0, LIMITS).maxAddedCommands(), "0% reserves nothing");
        assertEquals(0, HotKeyDecorator.percent(0, LIMITS).maxAddedBytes());
    }

    @Test
    void theHotWriterOpensItsSessionFirstAndAgainAfterItExpires() {
        HotKeyDecorator d = HotKeyDecorator.percent(100, LIMITS);
        Batch b0 = new Batch(0);
        d.onSeal(b0);
        assertEquals(List.of(KvCommand.openSession(PROXY << 32, 1)), b0.added, "the first marked batch opens the session");
        Batch b1 = new Batch(1);
        d.onSeal(b1);
        assertEquals(List.of(KvCommand.openSession(PROXY << 32, 2)), b1.added, "still none open: open again, never write without");
        d.onResult(b0.added.get(0), sessionOpened(900));
        Batch b2 = new Batch(2);
        d.onSeal(b2);
        KvCommand write = b2.added.get(0);
        assertEquals(KvCommand.multiPut(900, 3, new byte[][] {b("hot")}, new byte[][] {b("p7.3")}), write);
        assertTrue(ClientProxy.bytesInBatch(write) <= d.maxAddedBytes(), "within the reserve");
        d.onResult(b1.added.get(0), KvResult.of(KvStatus.SESSION_EXPIRED, "a later OPEN_SESSION's failure"));
        d.onResult(write, KvResult.ok());
        Batch b3 = new Batch(3);
        d.onSeal(b3);
        assertEquals(KvOp.MULTI_PUT, b3.added.get(0).op());
        assertEquals(900, b3.added.get(0).clientId());
        d.onResult(b3.added.get(0), KvResult.of(KvStatus.SESSION_EXPIRED, "session 900 expired"));
        Batch b4 = new Batch(4);
        d.onSeal(b4);
        assertEquals(List.of(KvCommand.openSession(PROXY << 32, 5)), b4.added, "an expired session is opened again");
        assertEquals(5, d.writes());
    }

    private static final ConflictDetection DETECTION = ConflictDetection.bitmap(4096);

    private static ReplicaConfig replicas() {
        return ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).workers(2).maxPending(64)
                .store(StoreConfig.heap()).build();
    }

    @Test
    void settingsAreValidated() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> new HotKeyDecorator(1.5, b("hot"), LIMITS));
        assertThrows(IllegalArgumentException.class, () -> new HotKeyDecorator(-0.1, b("hot"), LIMITS));
        assertThrows(IllegalArgumentException.class, () -> new HotKeyDecorator(0.1, new byte[0], LIMITS));
        IllegalArgumentException longKey = assertThrows(IllegalArgumentException.class,
                () -> new HotKeyDecorator(0.1, new byte[LIMITS.maxKeyBytes() + 1], LIMITS));
        assertTrue(longKey.getMessage().contains("the hot key must be 1 to " + LIMITS.maxKeyBytes() + " bytes"), longKey.getMessage());
        ProxyConfig full = ProxyConfig.builder().detection(DETECTION).maxBatchCommands(LIMITS.maxCommandsPerBatch()).build();
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            IllegalArgumentException noRoom = assertThrows(IllegalArgumentException.class,
                    () -> ClientProxy.start(full, c.broadcast(), HotKeyDecorator.percent(10, LIMITS)));
            assertTrue(noRoom.getMessage().contains("exceed the limit of " + LIMITS.maxCommandsPerBatch()), noRoom.getMessage());
            ClientProxy.start(full, c.broadcast(), HotKeyDecorator.percent(0, LIMITS)).close(); // 0% adds nothing
        }
    }

    @Test
    void aProxyWithItWritesTheHotKeyInExactlyTheMarkedBatches() throws Exception {
        ReplicaConfig rc = replicas();
        ProxyConfig pc = ProxyConfig.builder().detection(DETECTION).limits(LIMITS).maxBatchCommands(1).build();
        HotKeyDecorator hot = HotKeyDecorator.percent(25, LIMITS);
        try (EmbeddedCluster c = EmbeddedCluster.start(1, rc);
             ClientProxy p = ClientProxy.start(pc, c.broadcast(), c.router(), hot)) {
            KvClient client = p.newClient();
            for (int i = 0; i < 20; i++) {
                assertEquals(KvStatus.OK, client.blocking().create(b("k" + i), b("v")).status());
            }
            assertEquals(21, p.stats().batches(), "the client's OPEN_SESSION, then one batch per CREATE");
            // Batch 3 carries the hot writer's OPEN_SESSION; batches 7, 11, 15 and 19 its writes 2 to 5.
            assertEquals(5, hot.writes(), "batches 3, 7, 11, 15 and 19 of 21");
            assertEquals(5, p.stats().addedCommands());
            assertEquals(21, p.stats().commands(), "the hot writes are not client commands");
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            assertArrayEquals(b("p1.5"), c.replicas().get(0).store().get(b("hot")));
            assertEquals(21, c.replicas().get(0).store().size(), "20 client keys and the hot key");
        }
    }
}
