package io.psmr.proxy;

import static io.psmr.proxy.ClientProxyTest.DETECTION;
import static io.psmr.proxy.ClientProxyTest.LIMITS;
import static io.psmr.proxy.ClientProxyTest.b;
import static io.psmr.proxy.ClientProxyTest.get;
import static io.psmr.proxy.ClientProxyTest.proxy;
import static io.psmr.proxy.ClientProxyTest.replicas;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvBatch;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A client's requests reach the proxy in the order it made them, also while its session is being opened. */
class KvClientOrderTest {

    @Test
    void requestsMadeWhileTheSessionOpensAreProposedInTheOrderTheyWereMade() throws Exception {
        int requests = 12; // within the default 16 outstanding per client
        CountDownLatch releaseOpening = new CountDownLatch(1);
        List<KvCommand> proposed = new ArrayList<>(); // guarded by itself
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            ClientProxyTest.Interposer held = new ClientProxyTest.Interposer(c.broadcast(), v -> {
                KvBatch batch;
                try {
                    batch = KvCodec.decodeBatch(v, DETECTION, LIMITS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                synchronized (proposed) {
                    proposed.addAll(batch.commands());
                }
                if (batch.commands().get(0).op() != KvOp.OPEN_SESSION) {
                    return null;
                }
                // The session stays unopened until every request below has been made.
                return CompletableFuture.runAsync(() -> await(releaseOpening)).thenCompose(x -> c.broadcast().propose(v));
            });
            try (ClientProxy p = ClientProxy.start(proxy().maxBatchCommands(1).build(), held, c.router())) {
                KvClient client = p.newClient();
                List<CompletableFuture<KvResult>> results = new ArrayList<>();
                results.add(client.create(b("k"), b("0")));
                for (int i = 1; i < requests; i++) {
                    results.add(client.update(b("k"), b(Integer.toString(i))));
                }
                assertFalse(results.get(0).isDone(), "the session is still being opened");
                releaseOpening.countDown();
                for (int i = 0; i < requests; i++) {
                    KvResult r = get(results.get(i));
                    synchronized (proposed) {
                        assertEquals(KvStatus.OK, r.status(), "request " + i + "; proposed " + proposed);
                    }
                }
                // One more, made after the waiting ones: it must not overtake them either.
                assertEquals(KvStatus.OK, get(client.update(b("k"), b("last"))).status());
                assertArrayEquals(b("last"), get(client.read(b("k"))).value());
            }
            List<Long> seqs = new ArrayList<>();
            synchronized (proposed) {
                for (KvCommand command : proposed) {
                    if (command.op() != KvOp.OPEN_SESSION) {
                        seqs.add(command.requestSeq());
                    }
                }
            }
            List<Long> sorted = new ArrayList<>(seqs);
            sorted.sort(null);
            assertEquals(requests + 2, seqs.size(), seqs.toString());
            assertEquals(sorted, seqs, "request numbers in proposal order");
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the test never released the session's opening");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
