package io.psmr.kvstore.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplicaTest;
import io.psmr.ordering.transport.ClusterAuthority;
import io.psmr.ordering.transport.ClusterMember;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.TlsCredentials;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerReplyProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.nio.NioEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS on Ratis' wire ({@link RatisTls}, {@link RatisNettyServer}): a group of three peers, each with its node's
 * certificate, commits a client's entry sent with a client certificate; and a Raft request whose certificate may not
 * send it, plain TCP, and another cluster's member are each closed unanswered and logged, naming the problem.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RatisTlsTest {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ClusterAuthority ALPHA = ClusterAuthority.create("alpha", Duration.ofDays(1), RANDOM);
    private static final ClusterAuthority BETA = ClusterAuthority.create("beta", Duration.ofDays(1), RANDOM);

    @TempDir
    Path dir;

    private final List<RatisPeer> peers = new ArrayList<>();
    private final EventLoopGroup loop = new NioEventLoopGroup(1);
    private final ExecutorService replies = Executors.newSingleThreadExecutor();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private RaftGroup group;
    private Map<InetSocketAddress, ClusterMember> members;

    @BeforeEach
    void capture() {
        log.start();
        ((Logger) LoggerFactory.getLogger(RatisNettyServer.class)).addAppender(log);
        ((Logger) LoggerFactory.getLogger(LinkSecurity.class)).addAppender(log);
    }

    @AfterEach
    void stop() {
        RatisPeers.closeAll(peers);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        replies.shutdown();
        ((Logger) LoggerFactory.getLogger(RatisNettyServer.class)).detachAppender(log);
        ((Logger) LoggerFactory.getLogger(LinkSecurity.class)).detachAppender(log);
    }

    private static LinkSecurity tls(ClusterAuthority authority, ClusterMember member, Map<InetSocketAddress, ClusterMember> at) {
        ClusterAuthority.Issued issued = authority.issue(member, List.of("127.0.0.1"));
        return LinkSecurity.mutualTls(TlsCredentials.of(authority.certificate(), issued.certificate(), issued.key()), at);
    }

    /** Three peers p1..p3, node n1..n3 of cluster alpha, over mutual TLS; waits for a leader. */
    private void startGroup() throws Exception {
        List<RaftPeer> list = new ArrayList<>();
        members = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", freePort());
            list.add(RaftPeer.newBuilder().setId("p" + i).setAddress("127.0.0.1:" + at.getPort()).build());
            members.put(at, ClusterMember.node("alpha", "n" + i));
        }
        group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), list);
        for (int i = 1; i <= 3; i++) {
            RaftPeer p = list.get(i - 1);
            peers.add(RatisPeer.start(ReplicaTest.config(), group, p.getId(),
                    new InetSocketAddress("127.0.0.1", members.keySet().stream().toList().get(i - 1).getPort()),
                    dir.resolve(p.getId().toString()), 0, false, RatisDurability.SYNC,
                    tls(ALPHA, ClusterMember.node("alpha", "n" + i), members)));
        }
        awaitTrue(() -> peers.stream().anyMatch(RatisPeer::isLeader), "a leader");
    }

    @Test
    void aClientCertificateCommitsThroughTlsPeers() throws Exception {
        startGroup();
        byte[] entry = new byte[64];
        new Random(11).nextBytes(entry); // not a batch: every replica answers MALFORMED, alike
        LinkSecurity client = tls(ALPHA, ClusterMember.client("alpha", "127.0.0.1"), members);
        try (RaftClient c = RatisPeer.newClient(group, 1, client)) {
            RaftClientReply reply = c.io().send(Message.valueOf(ByteString.copyFrom(entry)));
            assertTrue(reply.isSuccess(), reply.toString());
            List<KvReply> kv = KvCodec.decodeReplies(reply.getMessage().getContent().toByteArray());
            assertTrue(kv.stream().allMatch(r -> r.result().status() == KvStatus.MALFORMED), kv.toString());
            long index = reply.getLogIndex();
            awaitTrue(() -> peers.stream().allMatch(p -> p.replica().appliedIndex() >= index),
                    "every peer applies entry " + index + " (appended to the followers over TLS)");
        }
        assertEquals(0, log.list.stream().filter(e -> e.getLevel().toString().equals("WARN")).count(),
                "nothing refused: " + log.list);
    }

    @Test
    void aRaftRequestFromAClientCertificateIsClosedUnansweredAndLogged() throws Exception {
        startGroup();
        LinkSecurity client = tls(ALPHA, ClusterMember.client("alpha", "127.0.0.1"), members);
        assertRefused(client, appendEntriesAs("p2", "p1"),
                "a Raft request as p2: its hello names node n2 of cluster alpha, and its certificate client 127.0.0.1 of cluster alpha");
    }

    @Test
    void aNodeSendingAsAnotherPeerIsClosedUnansweredAndLogged() throws Exception {
        startGroup();
        LinkSecurity n3 = tls(ALPHA, ClusterMember.node("alpha", "n3"), members);
        assertRefused(n3, requestVoteAs("p2", "p1"),
                "a Raft request as p2: its hello names node n2 of cluster alpha, and its certificate node n3 of cluster alpha");
    }

    @Test
    void aRaftRequestFromNoPeerOfTheGroupIsClosedUnansweredAndLogged() throws Exception {
        startGroup(); // a fresh server: refusals of one host are logged once a minute
        assertRefused(tls(ALPHA, ClusterMember.node("alpha", "n3"), members), requestVoteAs("p9", "p1"),
                "it sends a Raft request as p9, not a peer of the group");
    }

    @Test
    void plainTcpAndAnotherClustersMemberFailTheHandshake() throws Exception {
        startGroup();
        assertRefused(LinkSecurity.plain(), requestVoteAs("p2", "p1"), "TLS handshake failed");
        assertRefused(tls(BETA, ClusterMember.node("beta", "n2"), Map.of()), requestVoteAs("p2", "p1"), "TLS handshake failed");
    }

    /** Sends {@code request} to p1 under {@code security}: the connection must close unanswered, and a line say why. */
    private void assertRefused(LinkSecurity security, RaftNettyServerRequestProto request, String logged) throws Exception {
        RaftPeer p1 = group.getPeer(RaftPeerId.valueOf("p1"));
        int before = log.list.size();
        try (RatisNettyConnection c = new RatisNettyConnection(p1, loop, replies, security)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> c.send(request.getRequestVoteRequest().getServerRequest().getCallId()
                            + request.getAppendEntriesRequest().getServerRequest().getCallId(), request).get(10, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, e.getCause(), "closed unanswered: " + e.getCause());
        }
        awaitTrue(() -> log.list.subList(before, log.list.size()).stream()
                .anyMatch(l -> l.getFormattedMessage().contains(logged)), "a line saying '" + logged + "': " + log.list);
    }

    private static RaftRpcRequestProto header(String from, String to, long callId) {
        return RaftRpcRequestProto.newBuilder().setRequestorId(RaftPeerId.valueOf(from).toByteString())
                .setReplyId(RaftPeerId.valueOf(to).toByteString()).setCallId(callId).build();
    }

    private static RaftNettyServerRequestProto appendEntriesAs(String from, String to) {
        return RaftNettyServerRequestProto.newBuilder().setAppendEntriesRequest(AppendEntriesRequestProto.newBuilder()
                .setServerRequest(header(from, to, 41))).build();
    }

    private static RaftNettyServerRequestProto requestVoteAs(String from, String to) {
        return RaftNettyServerRequestProto.newBuilder().setRequestVoteRequest(RequestVoteRequestProto.newBuilder()
                .setServerRequest(header(from, to, 42))).build();
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
