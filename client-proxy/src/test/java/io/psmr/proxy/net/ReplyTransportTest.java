package io.psmr.proxy.net;

import static io.psmr.proxy.net.Conditions.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplyChannel;
import io.psmr.kvstore.net.ReplyProtocol;
import io.psmr.kvstore.net.ReplyServer;
import io.psmr.kvstore.net.ReplyServerConfig;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ReplyServer} and {@link ReplyConnector} on loopback: replies arrive equal and only at their proxy,
 * connectors reconnect to a restarted server, bad input closes only the offending connection, and a proxy that
 * stops reading makes the server drop replies instead of queueing them.
 */
@Timeout(30)
class ReplyTransportTest {

    static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    static final ReplyConnectorConfig FAST = ReplyConnectorConfig.defaults()
            .withReconnect(Duration.ofMillis(10), Duration.ofMillis(200));

    /** A reply channel that queues what it receives. */
    static final class Inbox implements ReplyChannel {
        final LinkedBlockingQueue<KvReply> replies = new LinkedBlockingQueue<>();

        @Override
        public void onReply(KvReply reply) {
            replies.add(reply);
        }

        KvReply take() throws InterruptedException {
            KvReply r = replies.poll(10, TimeUnit.SECONDS);
            assertNotNull(r, "no reply within 10 s");
            return r;
        }
    }

    static long seed() {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println("ReplyTransportTest seed " + seed);
        return seed;
    }

    static KvReply randomReply(Random rnd, int replicaId, long proxyId) {
        KvStatus status = KvStatus.values()[rnd.nextInt(KvStatus.values().length)];
        byte[] value = null;
        if (rnd.nextBoolean()) {
            value = new byte[rnd.nextInt(300)];
            rnd.nextBytes(value);
        }
        StringBuilder detail = new StringBuilder();
        for (int i = rnd.nextInt(40); i > 0; i--) {
            detail.append((char) (rnd.nextBoolean() ? 'a' + rnd.nextInt(26) : 0x3b1 + rnd.nextInt(20))); // ASCII and Greek
        }
        return new KvReply(replicaId, proxyId, rnd.nextLong(), rnd.nextInt(1000) - 1, rnd.nextLong() & Long.MAX_VALUE,
                new KvResult(status, value, detail.toString()));
    }

    static KvReply reply(long proxyId, long batchId) {
        return new KvReply(1, proxyId, batchId, 0, batchId, KvResult.ok());
    }

    @Test
    void repliesOfRandomContentsArriveEqualAndInOrder() throws Exception {
        Random rnd = new Random(seed());
        Inbox inbox = new Inbox();
        try (ReplyServer s1 = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
             ReplyServer s2 = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
             ReplyConnector c = ReplyConnector.start(7, Map.of(1, s1.localAddress(), 2, s2.localAddress()), inbox, FAST)) {
            assertTrue(c.awaitConnected(2, 10, TimeUnit.SECONDS), c.toString());
            List<List<KvReply>> sent = List.of(new ArrayList<>(), new ArrayList<>());
            for (int i = 0; i < 400; i++) {
                int r = rnd.nextInt(2);
                KvReply reply = randomReply(rnd, r + 1, 7);
                sent.get(r).add(reply);
                (r == 0 ? s1 : s2).route(reply);
            }
            List<List<KvReply>> got = List.of(new ArrayList<>(), new ArrayList<>());
            for (int i = 0; i < 400; i++) {
                KvReply reply = inbox.take();
                got.get(reply.replicaId() - 1).add(reply);
            }
            // Equal field by field (KvResult compares its value's bytes), and in each server's routing order.
            assertEquals(sent, got);
            assertEquals(400, s1.routed() + s2.routed());
            assertEquals(0, s1.dropped() + s2.dropped());
            assertEquals(400, c.received());
        }
    }

    @Test
    void repliesGoOnlyToTheirProxyAndUnknownProxiesAreDropped() throws Exception {
        Inbox a = new Inbox();
        Inbox b = new Inbox();
        try (ReplyServer s = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
             ReplyConnector ca = ReplyConnector.start(1, Map.of(1, s.localAddress()), a, FAST);
             ReplyConnector cb = ReplyConnector.start(2, Map.of(1, s.localAddress()), b, FAST)) {
            assertTrue(ca.awaitConnected(1, 10, TimeUnit.SECONDS));
            assertTrue(cb.awaitConnected(1, 10, TimeUnit.SECONDS));
            assertEquals(2, s.connectedProxies());
            for (int i = 0; i < 50; i++) {
                s.route(reply(1, i));
                s.route(reply(2, 1000 + i));
                if (i % 5 == 0) {
                    s.route(reply(3, i)); // no such proxy
                }
            }
            for (int i = 0; i < 50; i++) {
                assertEquals(reply(1, i), a.take());
                assertEquals(reply(2, 1000 + i), b.take());
            }
            assertEquals(100, s.routed());
            assertEquals(10, s.dropped());
            assertTrue(a.replies.isEmpty() && b.replies.isEmpty());
        }
    }

    @Test
    void aNewerConnectionOfTheSameProxyReplacesTheOlder() throws Exception {
        Inbox inbox = new Inbox();
        try (ReplyServer s = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
             Socket older = connect(s)) {
            hello(new DataOutputStream(older.getOutputStream()), 3);
            assertEquals(3, readWelcome(older));
            try (ReplyConnector c = ReplyConnector.start(3, Map.of(1, s.localAddress()), inbox, FAST)) {
                assertTrue(c.awaitConnected(1, 10, TimeUnit.SECONDS));
                assertClosedByPeer(older); // a reconnecting proxy: the server closes the connection it replaced
                s.route(reply(3, 1));
                assertEquals(reply(3, 1), inbox.take());
                assertEquals(1, s.connectedProxies());
                assertEquals(0, s.refusedConnections());
            }
        }
    }

    @Test
    void theConnectorReconnectsToARestartedServerOnTheSamePort() throws Exception {
        Inbox inbox = new Inbox();
        ReplyServer first = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
        InetSocketAddress address = first.localAddress();
        try (ReplyConnector c = ReplyConnector.start(9, Map.of(1, address), inbox, FAST)) {
            assertTrue(c.awaitConnected(1, 10, TimeUnit.SECONDS));
            first.route(reply(9, 1));
            assertEquals(reply(9, 1), inbox.take());

            first.close();
            await(() -> c.connectedCount() == 0, 10, () -> "the connector to notice the server closed: " + c);
            // SO_REUSEADDR: the port is free again at once, though the old connections sit in TIME_WAIT.
            try (ReplyServer second = ReplyServer.start(address, ReplyServerConfig.defaults())) {
                assertTrue(c.awaitConnected(1, 10, TimeUnit.SECONDS), c.toString());
                second.route(reply(9, 2));
                KvReply got = inbox.replies.poll(10, TimeUnit.SECONDS);
                assertEquals(reply(9, 2), got, () -> second + " routed " + second.routed() + " dropped " + second.dropped() + " " + c);
                assertEquals(0, second.dropped());
            }
        } finally {
            first.close();
        }
    }

    @Test
    void aTakenPortIsRefusedWithItsAddress() {
        try (ReplyServer s = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults())) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                    () -> ReplyServer.start(s.localAddress(), ReplyServerConfig.defaults()));
            assertTrue(e.getMessage().contains(String.valueOf(s.localAddress().getPort())), e.getMessage());
        }
    }

    @Test
    void badInputClosesOnlyThatConnection() throws Exception {
        Inbox inbox = new Inbox();
        ReplyServerConfig config = ReplyServerConfig.defaults().withHelloTimeout(Duration.ofMillis(300));
        try (ReplyServer s = ReplyServer.start(ANY_PORT, config);
             ReplyConnector good = ReplyConnector.start(1, Map.of(1, s.localAddress()), inbox, FAST)) {
            assertTrue(good.awaitConnected(1, 10, TimeUnit.SECONDS));
            long batch = 0;

            // 1. A first frame of the right length that is not a hello.
            try (Socket raw = connect(s)) {
                DataOutputStream out = new DataOutputStream(raw.getOutputStream());
                out.writeInt(ReplyProtocol.HANDSHAKE_BYTES);
                out.write("GET / HTTP/1.1".getBytes(), 0, ReplyProtocol.HANDSHAKE_BYTES);
                out.flush();
                assertClosedByPeer(raw);
            }
            await(() -> s.refusedConnections() == 1, 10, () -> "refusal of the garbage hello");
            s.route(reply(1, ++batch));
            assertEquals(reply(1, batch), inbox.take());

            // 2. A length prefix far beyond a hello: refused as soon as the prefix is read.
            try (Socket raw = connect(s)) {
                DataOutputStream out = new DataOutputStream(raw.getOutputStream());
                out.writeInt(1 << 30);
                out.flush();
                assertClosedByPeer(raw);
            }
            await(() -> s.refusedConnections() == 2, 10, () -> "refusal of the oversized prefix");
            s.route(reply(1, ++batch));
            assertEquals(reply(1, batch), inbox.take());

            // 3. A valid hello, the welcome, then one more frame: a proxy never sends anything after its hello.
            try (Socket raw = connect(s)) {
                DataOutputStream out = new DataOutputStream(raw.getOutputStream());
                hello(out, 2);
                assertEquals(2, readWelcome(raw));
                await(() -> s.connectedProxies() == 2, 10, () -> "proxy 2 registered");
                hello(out, 2);
                assertClosedByPeer(raw);
            }
            await(() -> s.refusedConnections() == 3, 10, () -> "refusal of the frame after the hello");
            await(() -> s.connectedProxies() == 1, 10, () -> "proxy 2 unregistered");
            s.route(reply(1, ++batch));
            assertEquals(reply(1, batch), inbox.take());

            // 4. A connection that never says hello holds its slot only until the hello timeout.
            try (Socket raw = connect(s)) {
                assertClosedByPeer(raw);
            }
            await(() -> s.refusedConnections() == 4, 10, () -> "refusal of the silent connection");
            s.route(reply(1, ++batch));
            assertEquals(reply(1, batch), inbox.take());

            assertEquals(1, good.connectedCount());
            assertEquals(0, good.refusedConnections());
        }
    }

    @Test
    void moreConnectionsThanTheBoundAreRefused() throws Exception {
        try (ReplyServer s = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults().withMaxConnections(1));
             Socket first = connect(s)) {
            hello(new DataOutputStream(first.getOutputStream()), 4);
            assertEquals(4, readWelcome(first));
            try (Socket second = connect(s)) {
                assertClosedByPeer(second);
            }
            assertEquals(1, s.refusedConnections());
        }
    }

    @Test
    void aMalformedReplyMakesTheConnectorReconnect() throws Exception {
        Inbox inbox = new Inbox();
        try (ServerSocket fake = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            fake.setSoTimeout(10_000);
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), fake.getLocalPort());
            try (ReplyConnector c = ReplyConnector.start(5, Map.of(1, address), inbox, FAST)) {
                try (Socket s = fake.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    assertEquals(ReplyProtocol.HANDSHAKE_BYTES, in.readInt());
                    byte[] hello = new byte[ReplyProtocol.HANDSHAKE_BYTES];
                    in.readFully(hello);
                    assertEquals(5, ReplyProtocol.decodeHandshake(hello));
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(hello.length);
                    out.write(hello); // the welcome echoes the hello
                    out.writeInt(5);
                    out.write("junk!".getBytes()); // not a reply
                    out.flush();
                    assertClosedByPeer(s);
                }
                assertEquals(1, c.refusedConnections());
                try (Socket again = fake.accept()) { // the connector comes back
                    assertEquals(ReplyProtocol.HANDSHAKE_BYTES, new DataInputStream(again.getInputStream()).readInt());
                }
            }
        }
        assertTrue(inbox.replies.isEmpty());
    }

    @Test
    void aReplicaCannotAnswerForAnotherReplica() throws Exception {
        Inbox inbox = new Inbox();
        try (ReplyServer honest = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
             ReplyServer impostor = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults());
             ReplyConnector c = ReplyConnector.start(4, Map.of(1, honest.localAddress(), 2, impostor.localAddress()), inbox,
                     FAST)) {
            assertTrue(c.awaitConnected(2, 10, TimeUnit.SECONDS), c.toString());
            // Replica 2 sends a reply naming replica 1: with f+1 matching replies it would count twice otherwise.
            impostor.route(new KvReply(1, 4, 1, 0, 1, KvResult.ok()));
            await(() -> c.refusedConnections() == 1, 10, () -> "refusal of replica 2's reply naming replica 1");
            assertEquals(0, c.received());
            honest.route(new KvReply(1, 4, 1, 0, 1, KvResult.ok()));
            assertEquals(new KvReply(1, 4, 1, 0, 1, KvResult.ok()), inbox.take());
            assertTrue(c.awaitConnected(2, 10, TimeUnit.SECONDS), "the impostor's connection comes back: " + c);
            impostor.route(new KvReply(2, 4, 1, 0, 1, KvResult.ok()));
            assertEquals(new KvReply(2, 4, 1, 0, 1, KvResult.ok()), inbox.take());
            assertEquals(1, c.refusedConnections());
        }
    }

    @Test
    void aProxyThatStopsReadingMakesTheServerDropNotQueue() throws Exception {
        int mark = 64 << 10;
        Inbox inbox = new Inbox();
        try (ReplyServer s = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults().withWriteHighWaterBytes(mark));
             ReplyConnector good = ReplyConnector.start(1, Map.of(1, s.localAddress()), inbox, FAST);
             Socket stuck = new Socket()) {
            stuck.setReceiveBufferSize(4096);
            stuck.connect(s.localAddress(), 5000);
            hello(new DataOutputStream(stuck.getOutputStream()), 2);
            assertEquals(2, readWelcome(stuck)); // and never reads again
            assertTrue(good.awaitConnected(1, 10, TimeUnit.SECONDS));

            // 100,000 replies of 1 KiB (100 MB) to a proxy that reads nothing: route never blocks, and once the
            // socket buffers and the mark are full every further reply is dropped and counted.
            KvReply big = new KvReply(1, 2, 1, 0, 1, KvResult.ok(new byte[1024]));
            int n = 100_000;
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                s.route(big);
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("routed " + n + " replies to a stuck proxy in " + millis + " ms: " + s.routed() + " sent, "
                    + s.dropped() + " dropped");
            assertEquals(n, s.routed() + s.dropped());
            assertTrue(s.dropped() > n / 2, "most replies dropped, got " + s.dropped());
            // What was accepted is bounded by twice the mark plus what the kernel buffers hold (a few MiB on
            // loopback), far below the 100 MB offered.
            assertTrue(s.routed() * 1060L < 2L * mark + (32 << 20), "accepted " + s.routed() + " replies");

            // The other proxy is unaffected.
            s.route(reply(1, 77));
            assertEquals(reply(1, 77), inbox.take());
        }
    }

    @Test
    void aBlockedChannelCostsDropsAndEverythingRoutedArrivesOnceItResumes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong got = new AtomicLong();
        ReplyChannel blocked = reply -> {
            // Against ReplyChannel's contract on purpose: it stops the connector's thread, so the proxy stops reading.
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            got.incrementAndGet();
        };
        try (ReplyServer s = ReplyServer.start(ANY_PORT, ReplyServerConfig.defaults().withWriteHighWaterBytes(16 << 10));
             ReplyConnector c = ReplyConnector.start(6, Map.of(1, s.localAddress()), blocked, FAST)) {
            assertTrue(c.awaitConnected(1, 10, TimeUnit.SECONDS));
            KvReply big = new KvReply(1, 6, 1, 0, 1, KvResult.ok(new byte[512]));
            // Two routing threads at once, as a replica's workers do, until the server has dropped some.
            Thread[] routers = new Thread[2];
            for (int t = 0; t < routers.length; t++) {
                routers[t] = new Thread(() -> {
                    for (int i = 0; i < 200_000 && s.dropped() < 1000; i++) {
                        s.route(big);
                    }
                });
                routers[t].start();
            }
            for (Thread t : routers) {
                t.join(20_000);
                assertTrue(!t.isAlive(), "route blocked");
            }
            assertTrue(s.dropped() >= 1000, "dropped " + s.dropped());
            long routed = s.routed();
            release.countDown();
            // Nothing handed to a live connection is lost: every routed reply reaches the channel.
            await(() -> got.get() == routed, 10, () -> "all " + routed + " routed replies, got " + got.get());
            assertEquals(routed, c.received());
        }
    }

    // ------------------------------------------------------------------------------------ raw sockets

    static Socket connect(ReplyServer s) throws IOException {
        Socket raw = new Socket();
        raw.connect(s.localAddress(), 5000);
        raw.setSoTimeout(10_000);
        return raw;
    }

    static void hello(DataOutputStream out, long proxyId) throws IOException {
        out.writeInt(ReplyProtocol.HANDSHAKE_BYTES);
        out.write(ReplyProtocol.encodeHandshake(proxyId));
        out.flush();
    }

    static long readWelcome(Socket raw) throws IOException {
        raw.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(raw.getInputStream());
        assertEquals(ReplyProtocol.HANDSHAKE_BYTES, in.readInt());
        byte[] body = new byte[ReplyProtocol.HANDSHAKE_BYTES];
        in.readFully(body);
        return ReplyProtocol.decodeHandshake(body);
    }

    /** Reads until the peer closes (end of stream or reset); fails on a read timeout. */
    static void assertClosedByPeer(Socket raw) throws IOException {
        raw.setSoTimeout(10_000);
        InputStream in = raw.getInputStream();
        AtomicLong extra = new AtomicLong();
        try {
            while (in.read() >= 0) {
                extra.incrementAndGet();
            }
        } catch (SocketException | EOFException e) {
            // reset by the peer: closed too
        }
    }
}
