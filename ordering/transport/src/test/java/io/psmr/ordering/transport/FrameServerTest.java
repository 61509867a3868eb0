package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A {@link FrameServer} on real loopback sockets, driven by plain blocking sockets. */
class FrameServerTest {

    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);

    private static void send(Socket s, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    /** Blocks until the server closes {@code s} (end of stream), up to the socket's read timeout. */
    private static void assertClosedByServer(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        assertEquals(-1, in.read(), "the server closed the connection");
    }

    @Test
    void badFramesCloseOnlyTheirConnectionAndAreCounted() throws Exception {
        try (RecordingServer server = new RecordingServer(ANY_PORT, new FrameServer.Limits(64, 16, 0));
             Socket good = new Socket()) {
            good.connect(server.address());
            send(good, "first");
            assertEquals("first", server.nextFrame());

            // A length prefix beyond the 64-byte limit: refused before any body arrives.
            try (Socket oversized = new Socket()) {
                oversized.connect(server.address());
                new DataOutputStream(oversized.getOutputStream()).writeInt(65);
                assertClosedByServer(oversized);
            }
            // A well-framed frame the handler finds malformed.
            try (Socket malformed = new Socket()) {
                malformed.connect(server.address());
                send(malformed, "bad");
                assertClosedByServer(malformed);
            }
            assertEquals(2, server.refusals.refusals());

            send(good, "second");
            assertEquals("second", server.nextFrame(), "the good connection is untouched");
            send(good, "x".repeat(64));
            assertEquals("x".repeat(64), server.nextFrame(), "a frame of exactly the limit is accepted");
        }
    }

    @Test
    void connectionsBeyondTheBoundAreRefusedAndCounted() throws Exception {
        try (RecordingServer server = new RecordingServer(ANY_PORT, new FrameServer.Limits(64, 2, 0));
             Socket a = new Socket(); Socket b = new Socket(); Socket c = new Socket()) {
            a.connect(server.address());
            b.connect(server.address());
            send(a, "a");
            send(b, "b");
            assertEquals("a", server.nextFrame());
            assertEquals("b", server.nextFrame());
            c.connect(server.address());
            assertClosedByServer(c);
            assertEquals(1, server.refusals.refusals());
            assertEquals(2, server.connectionCount());
            assertEquals(2, server.accepted.get(), "the refused connection never reached the caller's initializer");
        }
    }

    @Test
    void aTakenPortIsRefusedWithItsAddress() {
        try (RecordingServer server = new RecordingServer(ANY_PORT, new FrameServer.Limits(64, 2, 0))) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                    () -> new RecordingServer(server.address(), new FrameServer.Limits(64, 2, 0)).close());
            assertTrue(e.getMessage().startsWith("cannot listen on " + server.address()), e.getMessage());
        }
    }
}
