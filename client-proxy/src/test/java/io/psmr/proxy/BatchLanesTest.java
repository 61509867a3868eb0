package io.psmr.proxy;

import static io.psmr.proxy.ClientProxyTest.DETECTION;
import static io.psmr.proxy.ClientProxyTest.LIMITS;
import static io.psmr.proxy.ClientProxyTest.b;
import static io.psmr.proxy.ClientProxyTest.get;
import static io.psmr.proxy.ClientProxyTest.proxy;
import static io.psmr.proxy.ClientProxyTest.replicas;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link BatchLanes}: a batch holds one lane's commands, the oldest queued command's lane first, each lane in order. */
class BatchLanesTest {

    /** A command's lane: its key's first letter; OPEN_SESSION has a lane of its own. */
    private static final BatchLanes FIRST_LETTER = c -> c.op() == KvOp.OPEN_SESSION ? -1 : c.key()[0];

    @Test
    void batchesTakeTheOldestCommandsLaneInArrivalOrderAndLeaveTheOthersQueued() throws Exception {
        List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            ClientProxyTest.Interposer recording = new ClientProxyTest.Interposer(c.broadcast(), v -> {
                List<String> keys = keys(v);
                batches.add(keys);
                if (keys.equals(List.of("b0"))) {
                    held.countDown(); // the sender waits here: its window of one is taken, so the next commands queue
                    try {
                        assertTrue(release.await(30, TimeUnit.SECONDS), "released");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return null;
            });
            try (ClientProxy p = ClientProxy.start(proxy().window(1).lanes(FIRST_LETTER).build(), recording, c.router())) {
                KvClient client = p.newClient();
                assertEquals(KvStatus.OK, get(client.create(b("a0"), b("v"))).status());
                CompletableFuture<KvResult> first = client.create(b("b0"), b("v"));
                assertTrue(held.await(30, TimeUnit.SECONDS), "b0 proposed");
                List<CompletableFuture<KvResult>> later = new ArrayList<>();
                for (String k : List.of("a1", "b1", "a2", "b2", "a3")) {
                    later.add(client.create(b(k), b("v")));
                }
                release.countDown();
                assertEquals(KvStatus.OK, get(first).status());
                for (CompletableFuture<KvResult> f : later) {
                    assertEquals(KvStatus.OK, get(f).status());
                }
            }
        }
        List<List<String>> afterHeld = batches.subList(batches.indexOf(List.of("b0")) + 1, batches.size());
        assertEquals(List.of(List.of("a1", "a2", "a3"), List.of("b1", "b2")), afterHeld, "all batches: " + batches);
    }

    @Test
    void withOneLaneABatchTakesCommandsInArrivalOrderWhateverTheirKeys() {
        assertEquals(0, BatchLanes.ONE.laneOf(KvCommand.create(1, 1, b("a"), b("v"))));
        assertEquals(0, BatchLanes.ONE.laneOf(KvCommand.openSession(1, 1)));
        assertEquals(BatchLanes.ONE, proxy().build().lanes(), "the default");
    }

    /** The keys of a proposed batch, or the op for keyless commands. */
    private static List<String> keys(byte[] value) {
        try {
            List<String> keys = new ArrayList<>();
            for (KvCommand cmd : KvCodec.decodeBatch(value, DETECTION, LIMITS).commands()) {
                keys.add(cmd.op() == KvOp.OPEN_SESSION ? "OPEN_SESSION" : new String(cmd.key(), StandardCharsets.UTF_8));
            }
            return keys;
        } catch (io.psmr.kvstore.KvDecodeException e) {
            throw new AssertionError(e);
        }
    }
}
