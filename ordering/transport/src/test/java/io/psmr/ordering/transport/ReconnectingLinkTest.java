package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Links on real loopback sockets against a {@link RecordingServer}. */
class ReconnectingLinkTest {

    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);
    private static final FrameServer.Limits LIMITS = new FrameServer.Limits(1024, 16, 0);
    private static final ReconnectPolicy FAST = new ReconnectPolicy(Duration.ofMillis(5), Duration.ofMillis(40));

    private final EventLoopThread client = EventLoopThread.start("test-link");
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final AtomicInteger hellos = new AtomicInteger();
    private RecordingServer server;

    @AfterEach
    void stop() {
        client.shutdown();
        if (server != null) {
            server.close();
        }
    }

    private ReconnectingLink<String> link(java.util.function.Supplier<InetSocketAddress> address) {
        return link(address, FAST);
    }

    private ReconnectingLink<String> link(java.util.function.Supplier<InetSocketAddress> address, ReconnectPolicy policy) {
        return ReconnectingLink.to("peer-1", client.loop())
                .address(address)
                .bootstrap(ReconnectingLink.clientBootstrap(Duration.ofSeconds(1)))
                .initializer(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(LengthFraming.prepender());
                    }
                })
                .reconnect(policy)
                .hello(() -> Unpooled.copiedBuffer("hello " + hellos.incrementAndGet(), StandardCharsets.UTF_8))
                .listener(new ReconnectingLink.Listener<>() {
                    @Override
                    public void onConnected(ReconnectingLink<String> l, Channel ch) {
                        events.add("connected " + l.peer());
                    }

                    @Override
                    public void onDisconnected(ReconnectingLink<String> l, Channel ch) {
                        events.add("disconnected " + l.peer());
                    }
                })
                .build();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return client.loop().submit(task).get(10, TimeUnit.SECONDS);
    }

    private String nextEvent() throws InterruptedException {
        return events.poll(10, TimeUnit.SECONDS);
    }

    /**
     * Waits until every task the client loop runs within {@code millis} from now has run: a retry scheduled before
     * this marker, within that delay, runs before it. Used to show that a retry did not happen.
     */
    private void drainLoopFor(long millis) throws Exception {
        client.loop().schedule(() -> null, millis, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aLinkSendsItsHelloAndReconnectsAfterTheServerRestartsOnTheSamePort() throws Exception {
        server = new RecordingServer(ANY_PORT, LIMITS);
        InetSocketAddress address = server.address();
        ReconnectingLink<String> link = link(() -> address);
        client.loop().execute(link::connectIfIdle);
        assertEquals("connected peer-1", nextEvent());
        assertEquals("hello 1", server.nextFrame());
        onLoop(() -> link.channel().writeAndFlush(Unpooled.copiedBuffer("one", StandardCharsets.UTF_8)));
        assertEquals("one", server.nextFrame());

        server.close();
        assertEquals("disconnected peer-1", nextEvent());
        server = new RecordingServer(address, LIMITS); // SO_REUSEADDR: the same port at once
        assertEquals("connected peer-1", nextEvent());
        assertEquals("hello 2", server.nextFrame(), "each new connection starts with its own hello");
        assertTrue(onLoop(link::isConnected));
        onLoop(() -> link.channel().writeAndFlush(Unpooled.copiedBuffer("two", StandardCharsets.UTF_8)));
        assertEquals("two", server.nextFrame());
        assertTrue(onLoop(link::attempts) >= 2, "at least one attempt per connection");
        link.close();
        assertEquals("disconnected peer-1", nextEvent());
    }

    @Test
    void aClosedLinkClosesItsConnectionAndNeverConnectsAgain() throws Exception {
        server = new RecordingServer(ANY_PORT, LIMITS);
        ReconnectingLink<String> link = link(server::address);
        client.loop().execute(link::connectIfIdle);
        assertEquals("connected peer-1", nextEvent());
        assertEquals("hello 1", server.nextFrame());

        link.close(); // from the test thread: any thread may close
        assertEquals("disconnected peer-1", nextEvent());
        assertNotNull(server.closed.poll(10, TimeUnit.SECONDS), "the server sees the connection closed");
        // Without the close, a retry would come after the 5 ms minimum: give it eight times the maximum.
        drainLoopFor(8 * FAST.max().toMillis());
        client.loop().execute(link::connectIfIdle); // even asked to, a closed link stays closed
        drainLoopFor(8 * FAST.max().toMillis());
        assertEquals(1, onLoop(link::attempts));
        assertNull(onLoop(link::channel));
        assertEquals(1, server.accepted.get());
        assertEquals(0, server.connectionCount());
        assertTrue(link.isClosed());
        assertNull(events.poll(), "no further events: " + events);
    }

    @Test
    void closingALinkThatIsWaitingToRetryCancelsTheRetry() throws Exception {
        // A port that is bound, then released: nothing listens there, so every attempt is refused.
        RecordingServer gone = new RecordingServer(ANY_PORT, LIMITS);
        InetSocketAddress address = gone.address();
        gone.close();
        ReconnectingLink<String> link = link(() -> address);
        AtomicReference<Long> before = new AtomicReference<>();
        client.loop().execute(link::connectIfIdle);
        // Wait until it has failed and retried a few times.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (onLoop(link::attempts) < 3) {
            assertTrue(System.nanoTime() < deadline, "the link retries a refused connection");
            drainLoopFor(FAST.max().toMillis());
        }
        before.set(onLoop(() -> {
            link.close(); // on the loop: takes effect at once
            return link.attempts();
        }));
        drainLoopFor(8 * FAST.max().toMillis());
        assertEquals(before.get(), onLoop(link::attempts), "no attempt after close");
        assertNull(events.poll(), "never connected: " + events);
    }

    @Test
    void reconnectNowSkipsTheBackoffOfALinkWaitingToRetry() throws Exception {
        RecordingServer gone = new RecordingServer(ANY_PORT, LIMITS);
        InetSocketAddress address = gone.address();
        gone.close();
        // A retry 60 s after the refusal: only reconnectNow can connect within the 10 s nextEvent waits.
        ReconnectingLink<String> link = link(() -> address, new ReconnectPolicy(Duration.ofSeconds(60), Duration.ofSeconds(60)));
        client.loop().execute(link::connectIfIdle);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!onLoop(link::isWaitingToRetry)) {
            assertTrue(System.nanoTime() < deadline, "the first attempt is refused and a retry scheduled");
            drainLoopFor(5);
        }
        assertEquals(1, onLoop(link::attempts));
        server = new RecordingServer(address, LIMITS);
        client.loop().execute(link::reconnectNow);
        assertEquals("connected peer-1", nextEvent());
        assertEquals("hello 1", server.nextFrame());
        assertEquals(2, onLoop(link::attempts));
        client.loop().execute(link::reconnectNow); // connected: nothing to do
        drainLoopFor(50);
        assertEquals(2, onLoop(link::attempts));
        assertEquals(1, server.accepted.get());
        link.close();
        assertEquals("disconnected peer-1", nextEvent());
    }

    @Test
    void aPeerWhoseAddressIsNotKnownYetIsConnectedOnceItIs() throws Exception {
        server = new RecordingServer(ANY_PORT, LIMITS);
        AtomicReference<InetSocketAddress> known = new AtomicReference<>();
        ReconnectingLink<String> link = link(known::get);
        client.loop().execute(link::connectIfIdle);
        drainLoopFor(4 * FAST.max().toMillis());
        assertEquals(0, onLoop(link::attempts), "no attempt without an address");
        known.set(server.address());
        assertEquals("connected peer-1", nextEvent());
        assertEquals("hello 1", server.nextFrame());
        assertEquals(1, onLoop(link::attempts));
    }
}
