package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Mutual TLS between a {@link FrameServer} and a {@link ReconnectingLink} on loopback, and who gets refused. */
class LinkSecurityTest {

    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);
    private static final FrameServer.Limits LIMITS = new FrameServer.Limits(1024, 16, 0);
    private static final ReconnectPolicy FAST = new ReconnectPolicy(Duration.ofMillis(20), Duration.ofMillis(200));
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ClusterAuthority ALPHA = ClusterAuthority.create("alpha", Duration.ofDays(1), RANDOM);
    private static final ClusterAuthority BETA = ClusterAuthority.create("beta", Duration.ofDays(1), RANDOM);

    private final EventLoopThread client = EventLoopThread.start("test-tls-link");
    private RecordingServer server;
    private ReconnectingLink<String> link;

    @AfterEach
    void stop() {
        if (link != null) {
            link.close();
        }
        client.shutdown();
        if (server != null) {
            server.close();
        }
    }

    private static TlsCredentials member(ClusterAuthority authority, ClusterMember member) {
        ClusterAuthority.Issued issued = authority.issue(member, List.of("127.0.0.1"));
        return TlsCredentials.of(authority.certificate(), issued.certificate(), issued.key());
    }

    private static LinkSecurity tls(ClusterAuthority authority, ClusterMember member, Map<InetSocketAddress, ClusterMember> nodes) {
        return LinkSecurity.mutualTls(member(authority, member), nodes);
    }

    private void serve(LinkSecurity security, LinkSecurity.Admit admit) {
        server = new RecordingServer(ANY_PORT, LIMITS, security, admit);
    }

    private void dial(LinkSecurity security) {
        dial(security, server.address());
    }

    /** Dials {@code target} over {@code security}; the link's hello is "hello". */
    private void dial(LinkSecurity security, InetSocketAddress target) {
        link = ReconnectingLink.to("n1", client.loop())
                .address(target)
                .bootstrap(ReconnectingLink.clientBootstrap(Duration.ofSeconds(2)))
                .initializer(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(LengthFraming.prepender());
                    }
                })
                .security(security)
                .reconnect(FAST)
                .hello(() -> Unpooled.copiedBuffer("hello", StandardCharsets.UTF_8))
                .build();
        client.loop().execute(link::connectIfIdle);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(10); // polling a condition, with a deadline
        }
    }

    @Test
    void nodesOfOneClusterTalkOverTls() throws Exception {
        serve(tls(ALPHA, ClusterMember.node("alpha", "n1"), Map.of()), LinkSecurity.Admit.NODES);
        LinkSecurity n2 = tls(ALPHA, ClusterMember.node("alpha", "n2"), Map.of(server.address(), ClusterMember.node("alpha", "n1")));
        dial(n2);
        assertEquals("hello", server.nextFrame());
        assertEquals(0, n2.refusals());
    }

    @Test
    void aDialerRefusesAnotherNodeThanTheOneAtTheAddress() throws Exception {
        serve(tls(ALPHA, ClusterMember.node("alpha", "n1"), Map.of()), LinkSecurity.Admit.NODES);
        LinkSecurity n2 = tls(ALPHA, ClusterMember.node("alpha", "n2"), Map.of(server.address(), ClusterMember.node("alpha", "n3")));
        ListAppender<ILoggingEvent> log = capture();
        dial(n2);
        await("the dialler refuses n1's certificate", () -> n2.refusals() > 0);
        assertNull(server.frames.poll());
        awaitLogged(log, "dialled node n3", "names node n1 of cluster alpha");
    }

    @Test
    void aServerRefusesAMemberOfAnotherCluster() throws Exception {
        LinkSecurity n1 = tls(ALPHA, ClusterMember.node("alpha", "n1"), Map.of());
        serve(n1, LinkSecurity.Admit.NODES);
        // Beta's node trusts only beta's authority, and alpha's node only alpha's: neither side gets through.
        dial(tls(BETA, ClusterMember.node("beta", "n2"), Map.of(server.address(), ClusterMember.node("beta", "n1"))));
        await("the server refuses beta's node", () -> n1.refusals() > 0);
        assertNull(server.frames.poll());
    }

    @Test
    void aClientCertificateReachesMemberPortsOnly() throws Exception {
        LinkSecurity n1 = tls(ALPHA, ClusterMember.node("alpha", "n1"), Map.of());
        serve(n1, LinkSecurity.Admit.NODES);
        ListAppender<ILoggingEvent> log = capture();
        dial(tls(ALPHA, ClusterMember.client("alpha", "127.0.0.1"), Map.of(server.address(), ClusterMember.node("alpha", "n1"))));
        await("the node port refuses a client", () -> n1.refusals() > 0);
        assertNull(server.frames.poll());
        awaitLogged(log, "this port admits only nodes");
        link.close();
        server.close();

        serve(tls(ALPHA, ClusterMember.node("alpha", "n1"), Map.of()), LinkSecurity.Admit.MEMBERS);
        dial(tls(ALPHA, ClusterMember.client("alpha", "127.0.0.1"), Map.of(server.address(), ClusterMember.node("alpha", "n1"))));
        assertEquals("hello", server.nextFrame());
    }

    @Test
    void aHelloMayNameOnlyTheMemberOfItsCertificate() throws Exception {
        InetSocketAddress n2At = new InetSocketAddress("127.0.0.1", 7002);
        InetSocketAddress slotAt = new InetSocketAddress("127.0.0.1", 7009);
        LinkSecurity n1 = tls(ALPHA, ClusterMember.node("alpha", "n1"),
                Map.of(n2At, ClusterMember.node("alpha", "n2"), slotAt, ClusterMember.client("alpha", "127.0.0.1")));
        BlockingQueue<String> verdicts = new LinkedBlockingQueue<>();
        EventLoopThread serverLoop = EventLoopThread.start("test-claims");
        RefusalLog refusals = RefusalLog.perMinute(LoggerFactory.getLogger(LinkSecurityTest.class), () -> "test");
        FrameServer claims = FrameServer.bind(serverLoop.loop(), ANY_PORT, LIMITS, refusals, n1, LinkSecurity.Admit.MEMBERS,
                ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        String hello = new String(LengthFraming.take(msg), StandardCharsets.UTF_8);
                        InetSocketAddress claimed = hello.equals("hello") ? n2At : slotAt;
                        verdicts.add(n1.claimProblem(ctx.channel(), claimed).orElse("admitted"));
                    }
                }));
        try {
            LinkSecurity clientSecurity = tls(ALPHA, ClusterMember.client("alpha", "127.0.0.1"),
                    Map.of(claims.localAddress(), ClusterMember.node("alpha", "n1")));
            dial(clientSecurity, claims.localAddress()); // its hello, "hello", claims node n2
            assertEquals("its hello names node n2 of cluster alpha, and its certificate client 127.0.0.1 of cluster alpha",
                    verdicts.poll(10, TimeUnit.SECONDS));
            this.client.loop().execute(() -> link.channel().writeAndFlush(Unpooled.copiedBuffer("slot", StandardCharsets.UTF_8)));
            assertEquals("admitted", verdicts.poll(10, TimeUnit.SECONDS), "the client's own slot");
            assertEquals(Optional.empty(), LinkSecurity.plain().claimProblem((io.netty.channel.Channel) null, n2At), "plain TCP believes hellos");
        } finally {
            serverLoop.shutdown(claims::close);
        }
    }

    @Test
    void plainBytesOnATlsPortAreRefused() throws Exception {
        LinkSecurity n1 = tls(ALPHA, ClusterMember.node("alpha", "n1"), Map.of());
        serve(n1, LinkSecurity.Admit.MEMBERS);
        dial(LinkSecurity.plain());
        await("the server refuses plain bytes", () -> n1.refusals() > 0);
        assertNull(server.frames.poll());
    }

    @Test
    void keyFilesMustBeOwnerOnlyAndMatchTheirCertificate(@TempDir Path dir) throws IOException {
        ClusterAuthority.Issued n1 = ALPHA.issue(ClusterMember.node("alpha", "n1"), List.of("127.0.0.1"));
        ALPHA.write(dir.resolve("ca.pem"), dir.resolve("ca.key"));
        n1.write(dir.resolve("n1.pem"), dir.resolve("n1.key"));
        TlsCredentials loaded = TlsCredentials.load(dir.resolve("ca.pem"), dir.resolve("n1.pem"), dir.resolve("n1.key"));
        assertEquals(ClusterMember.node("alpha", "n1"), loaded.self());

        Files.setPosixFilePermissions(dir.resolve("n1.key"), PosixFilePermissions.fromString("rw-r--r--"));
        TlsFileException open = assertThrows(TlsFileException.class,
                () -> TlsCredentials.load(dir.resolve("ca.pem"), dir.resolve("n1.pem"), dir.resolve("n1.key")));
        assertTrue(open.getMessage().contains("rw-r--r--") && open.getMessage().contains("chmod 600"), open.getMessage());

        ALPHA.issue(ClusterMember.node("alpha", "n2"), List.of()).write(dir.resolve("n2.pem"), dir.resolve("n2.key"));
        TlsFileException mismatch = assertThrows(TlsFileException.class,
                () -> TlsCredentials.load(dir.resolve("ca.pem"), dir.resolve("n1.pem"), dir.resolve("n2.key")));
        assertTrue(mismatch.getMessage().contains("does not match"), mismatch.getMessage());

        BETA.write(dir.resolve("beta.pem"), dir.resolve("beta.key"));
        TlsFileException foreign = assertThrows(TlsFileException.class,
                () -> TlsCredentials.load(dir.resolve("beta.pem"), dir.resolve("n2.pem"), dir.resolve("n2.key")));
        assertTrue(foreign.getMessage().contains("is not signed by the cluster's authority"), foreign.getMessage());

        TlsFileException missing = assertThrows(TlsFileException.class,
                () -> TlsCredentials.load(dir.resolve("ca.pem"), dir.resolve("n9.pem"), dir.resolve("n9.key")));
        assertTrue(missing.getMessage().contains("n9.pem is missing"), missing.getMessage());
    }

    @Test
    void memberNamesRoundTripAndRefuseStrangers() {
        ClusterMember m = ClusterMember.client("c-1", "10.0.0.7");
        assertEquals("psmr://c-1/client/10.0.0.7", m.uri().toString());
        assertEquals(m, ClusterMember.parse(m.uri().toString()));
        IllegalArgumentException role = assertThrows(IllegalArgumentException.class, () -> ClusterMember.parse("psmr://c/admin/x"));
        assertTrue(role.getMessage().contains("names role 'admin'"), role.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClusterMember.parse("https://c/node/x"));
        assertThrows(IllegalArgumentException.class, () -> ClusterMember.node("c", "../x"));
    }

    private static ListAppender<ILoggingEvent> capture() {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        ((Logger) LoggerFactory.getLogger(LinkSecurity.class)).addAppender(appender);
        return appender;
    }

    /**
     * Waits until a captured line contains every one of {@code parts}. A refusal is counted before it is logged,
     * on the connection's thread, so the line may come a moment after the count the test waited on.
     */
    private static void awaitLogged(ListAppender<ILoggingEvent> log, String... parts) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (lines(log).stream().noneMatch(line -> java.util.Arrays.stream(parts).allMatch(line::contains))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: a line with " + java.util.Arrays.toString(parts)
                        + " among " + lines(log));
            }
            Thread.sleep(10); // polling a condition, with a deadline
        }
    }

    /** The captured lines so far; read under the appender's lock, which every append holds. */
    private static List<String> lines(ListAppender<ILoggingEvent> log) {
        synchronized (log) {
            return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }
}
