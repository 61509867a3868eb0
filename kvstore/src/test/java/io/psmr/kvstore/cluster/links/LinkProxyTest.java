package io.psmr.kvstore.cluster.links;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.psmr.ordering.transport.SocketIo;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One link over real loopback sockets, in front of an echo server: bytes pass whole and in order under every
 * condition, a blackhole holds them (and new connections) without closing anything until it heals, a reset closes
 * the connections with RST while later ones pass, delays and throttles never deliver early, and a target that refuses
 * closes the client's connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LinkProxyTest {

    /** A window in which nothing may arrive through a blackhole: long against loopback, short for the suite. */
    static final long QUIET_MILLIS = 300;
    /** The longest a read may block: socket reads ignore JUnit's timeout. */
    static final int READ_TIMEOUT_MILLIS = 20_000;

    EventLoopGroup group;
    EchoServer echo;
    LinkProxy link;
    int port;

    @BeforeEach
    void start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, SocketIo.current().handlerFactory());
        echo = new EchoServer();
        link = new LinkProxy(new InetSocketAddress("127.0.0.1", echo.port()), group, 42);
        port = link.listen("127.0.0.1", 0);
    }

    @AfterEach
    void stop() throws Exception {
        link.close();
        echo.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void passesBytesBothWaysWholeAndInOrder() throws Exception {
        try (Socket s = connect()) {
            byte[] sent = pattern(200_000);
            write(s, sent);
            assertArrayEquals(sent, readFully(s, sent.length));
        }
        assertEquals(400_000, awaitBytes(400_000));
    }

    @Test
    void aBlackholeHoldsBytesAndClosesNothingUntilItHeals() throws Exception {
        try (Socket s = connect()) {
            write(s, new byte[] {1, 2, 3});
            assertArrayEquals(new byte[] {1, 2, 3}, readFully(s, 3));
            link.condition(LinkCondition.BLACKHOLE); // a chunk read from now on is held
            byte[] held = pattern(10_000);
            write(s, held);
            s.setSoTimeout((int) QUIET_MILLIS);
            assertThrows(java.net.SocketTimeoutException.class, () -> s.getInputStream().read(),
                    "nothing passes a blackhole");
            assertEquals(1, link.connectionsOpen(), "a blackhole closes nothing");
            link.condition(LinkCondition.PASS);
            s.setSoTimeout(READ_TIMEOUT_MILLIS);
            assertArrayEquals(held, readFully(s, held.length), "what was held passes, in order, once it heals");
        }
    }

    @Test
    void aBlackholeHoldsNewConnectionsUntilItHeals() throws Exception {
        link.condition(LinkCondition.BLACKHOLE);
        try (Socket s = connect()) {
            write(s, new byte[] {9, 8, 7});
            s.setSoTimeout((int) QUIET_MILLIS);
            assertThrows(java.net.SocketTimeoutException.class, () -> s.getInputStream().read());
            assertEquals(0, echo.accepted.get(), "the target saw no connection through the blackhole");
            link.condition(LinkCondition.PASS);
            s.setSoTimeout(READ_TIMEOUT_MILLIS);
            assertArrayEquals(new byte[] {9, 8, 7}, readFully(s, 3));
            assertEquals(1, echo.accepted.get());
        }
    }

    @Test
    void aResetClosesEveryConnectionWithRstAndLaterOnesPass() throws Exception {
        try (Socket s = connect()) {
            write(s, new byte[] {1});
            assertArrayEquals(new byte[] {1}, readFully(s, 1));
            link.reset();
            IOException e = assertThrows(IOException.class, () -> {
                while (true) { // a reset shows as "Connection reset" on a read, or a write after it
                    if (s.getInputStream().read() < 0) {
                        throw new java.io.EOFException("closed with FIN, not reset");
                    }
                }
            });
            assertTrue(e instanceof SocketException && e.getMessage().contains("reset"), "a TCP reset, got " + e);
        }
        try (Socket s = connect()) {
            write(s, new byte[] {2});
            assertArrayEquals(new byte[] {2}, readFully(s, 1), "a connection after the reset passes");
        }
    }

    @Test
    void aDelayNeverDeliversEarlyAndKeepsTheOrder() throws Exception {
        link.condition(LinkCondition.delay(100, 50));
        try (Socket s = connect()) {
            byte[] sent = pattern(50_000);
            long t0 = System.nanoTime();
            OutputStream out = s.getOutputStream();
            for (int i = 0; i < sent.length; i += 500) {
                out.write(sent, i, 500); // many chunks, each with its own jitter: none may pass another
                out.flush();
            }
            byte[] back = readFully(s, sent.length);
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertArrayEquals(sent, back);
            assertTrue(elapsed >= 200, "a round trip through a 100 ms delay each way took " + elapsed + " ms");
        }
    }

    @Test
    void aThrottleNeverPassesMoreThanItsRate() throws Exception {
        link.condition(LinkCondition.throttle(20_000));
        try (Socket s = connect()) {
            byte[] sent = pattern(10_000);
            long t0 = System.nanoTime();
            write(s, sent);
            assertArrayEquals(sent, readFully(s, sent.length));
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(elapsed >= 400, "10,000 bytes at 20,000 B/s each way took " + elapsed + " ms");
        }
    }

    @Test
    void aTargetThatRefusesClosesTheClientsConnection() throws Exception {
        int closed;
        try (ServerSocket gone = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = gone.getLocalPort(); // closed with no thread in accept: nothing listens there any more
        }
        try (LinkProxy nowhere = new LinkProxy(new InetSocketAddress("127.0.0.1", closed), group, 1)) {
            int p = nowhere.listen("127.0.0.1", 0);
            try (Socket s = new Socket("127.0.0.1", p)) {
                s.setSoTimeout(READ_TIMEOUT_MILLIS);
                assertEquals(-1, s.getInputStream().read(), "the link closes what it cannot relay");
            }
        }
    }

    @Test
    void refusesConditionsOutOfRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new LinkCondition(false, -1, 0, 0));
        assertTrue(e.getMessage().contains("at least 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LinkCondition.throttle(0));
        assertEquals("a throttle needs at least 1 byte per second, got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LinkCondition.delay(61_000, 0));
        assertTrue(e.getMessage().contains("at most 60 s"), e.getMessage());
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setTcpNoDelay(true);
        s.setSoTimeout(READ_TIMEOUT_MILLIS); // a blocked read fails the test instead of hanging it
        return s;
    }

    private long awaitBytes(long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (link.bytes() < n && System.nanoTime() < deadline) {
            Thread.sleep(10); // the counter follows the last write's completion on the loop
        }
        return link.bytes();
    }

    private static void write(Socket s, byte[] b) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(b);
        out.flush();
    }

    private static byte[] readFully(Socket s, int n) throws IOException {
        byte[] b = new byte[n];
        new DataInputStream(s.getInputStream()).readFully(b);
        return b;
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + (i >> 8));
        }
        return b;
    }

    /** A blocking echo server, a thread per connection. */
    static final class EchoServer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        final AtomicInteger accepted = new AtomicInteger();

        EchoServer() throws IOException {
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        accepted.incrementAndGet();
                        Thread c = new Thread(() -> echo(s), "echo-connection");
                        c.setDaemon(true);
                        c.start();
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            }, "echo-accept");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private static void echo(Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                byte[] buf = new byte[8192];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side went away
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
