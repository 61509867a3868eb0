package io.psmr.kvstore.ratis;

import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaTest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RatisPeer#start}: a peer that fails to start is an exception naming it, its address and the
 * cause, leaves nothing behind (its Netty server's threads included), and does not end the JVM (nothing in this
 * test disables Ratis' System.exit; {@link RatisPeer} does). A peer whose Ratis thread dies is reported failed and
 * stopped. An entry as large as the largest batch reaches every peer over Ratis' Netty RPC.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RatisPeerTest {

    @TempDir
    Path dir;

    @Test
    void aPeerThatCannotBindItsPortThrowsNamingItAndLeavesNoThreadsAndItsStorageFree() throws Exception {
        Thread.UncaughtExceptionHandler handlerBefore = Thread.getDefaultUncaughtExceptionHandler();
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        RaftPeerId id = RaftPeerId.valueOf("failing-peer");
        int port;
        RaftGroup group;
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            port = taken.getLocalPort();
            group = group(id, port);
            IOException e = assertThrows(IOException.class,
                    () -> RatisPeer.start(ReplicaTest.config(), group, id, port, dir.resolve("peer"), 0, false).close(),
                    "the port is taken");
            // Reaching this line is (a): the JVM is still alive.
            // The cause is the bind's own message: "Address already in use" from the JDK, prefixed by
            // "bind(..) failed with error(-98): " where Ratis' Netty uses its native (epoll) transport.
            Throwable bind = innermost(e);
            assertTrue(bind.getMessage().endsWith("Address already in use"), "the innermost cause: " + bind);
            assertEquals("Ratis peer failing-peer could not start on 127.0.0.1:" + port + ": " + bind.getMessage(),
                    e.getMessage());
        }
        // Ratis installs a JVM-wide uncaught-exception handler when its ExitUtils initialises; psmr puts the old one back.
        Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();
        assertSame(handlerBefore, handler);
        assertTrue(handler == null || !handler.getClass().getName().startsWith("org.apache.ratis."), "handler " + handler);
        assertNoThreadsLeft(before, id);
        // The port is free now: the storage the failed start formatted opens again, so that start released its lock.
        try (RatisPeer peer = RatisPeer.start(ReplicaTest.config(), group, id, port, dir.resolve("peer"), 0, true)) {
            assertTrue(peer.committedIndex() >= -1);
            assertTrue(peer.failure().isEmpty());
        }
    }

    @Test
    void aPeerWhoseRatisThreadDiesIsReportedFailedAndStopped() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        RaftPeerId id = RaftPeerId.valueOf("dying-peer");
        int port = freePort();
        try (RatisPeer peer = RatisPeer.start(ReplicaTest.config(), group(id, port), id, port, dir.resolve("peer"), 0, false)) {
            awaitTrue(peer::isLeader, "the single peer leads");
            // A thread in the peer's group stands for a Ratis daemon (election, appender, updater) that dies.
            Thread dying = new Thread(peer.threads(), () -> {
                throw new IllegalStateException("injected fault");
            }, "injected-daemon");
            dying.start();
            dying.join(10_000);
            IllegalStateException failure = peer.failure().orElseThrow();
            assertEquals("Ratis peer dying-peer on 127.0.0.1:" + port + " failed: its thread injected-daemon died of "
                    + "java.lang.IllegalStateException: injected fault", failure.getMessage());
            // Stopped, not half-running: no leader, its port free again, its Ratis threads gone.
            awaitTrue(() -> !peer.isLeader() && portIsFree(port), "the failed peer stops serving and frees its port");
            assertNoThreadsLeft(before, id);
        }
    }

    @Test
    void aClusterWithAPeerThatStoppedOnItsOwnSaysWhichInsteadOfWaiting() throws Exception {
        try (EmbeddedRatisCluster cluster = EmbeddedRatisCluster.start(1, ReplicaTest.config(), dir.resolve("cluster"), 0)) {
            assertEquals(1, cluster.awaitLeader(15, TimeUnit.SECONDS));
            Thread dying = new Thread(cluster.peer(1).threads(), () -> {
                throw new IllegalStateException("injected fault");
            }, "injected-daemon");
            dying.start();
            dying.join(10_000);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> cluster.awaitQuiescent(15, TimeUnit.SECONDS));
            assertTrue(e.getMessage().matches("Ratis peer p1 on 127\\.0\\.0\\.1:\\d+ failed: its thread injected-daemon died of "
                    + "java\\.lang\\.IllegalStateException: injected fault"), e.getMessage());
            assertThrows(IllegalStateException.class, cluster::digests);
        }
    }

    @Test
    void anEntryAsLargeAsTheLargestBatchReachesEveryPeer() throws Exception {
        // 4 MiB: above Ratis' defaults for the appender's buffer (4 MiB) and gRPC's message size (4 MiB).
        KvLimits limits = KvLimits.defaults().withMaxBatchBytes(4 << 20);
        ReplicaConfig config = ReplicaTest.config().toBuilder().limits(limits).build();
        int[] ports = {freePort(), freePort(), freePort()};
        List<RaftPeer> members = new ArrayList<>();
        for (int i = 0; i < ports.length; i++) {
            members.add(RaftPeer.newBuilder().setId("large-" + i).setAddress(new InetSocketAddress("127.0.0.1", ports[i])).build());
        }
        RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), members);
        List<RatisPeer> peers = new ArrayList<>();
        try {
            for (int i = 0; i < ports.length; i++) {
                RaftPeerId id = members.get(i).getId();
                peers.add(RatisPeer.start(config, group, id, ports[i], dir.resolve(id.toString()), 0, false));
            }
            awaitTrue(() -> peers.stream().anyMatch(RatisPeer::isLeader), "a leader");
            // An entry of the largest batch's size (random bytes, which every replica refuses as malformed): the
            // client's request to the leader and the leader's AppendEntries to each follower carry all of it.
            byte[] entry = new byte[limits.maxBatchBytes()];
            new Random(7).nextBytes(entry);
            try (RaftClient client = RatisPeer.newClient(group, 1)) {
                RaftClientReply reply = client.io().send(Message.valueOf(ByteString.copyFrom(entry)));
                assertTrue(reply.isSuccess(), reply.toString());
                List<KvReply> replies = KvCodec.decodeReplies(reply.getMessage().getContent().toByteArray());
                assertTrue(replies.stream().allMatch(r -> r.result().status() == KvStatus.MALFORMED), replies.toString());
                long index = reply.getLogIndex();
                awaitTrue(() -> peers.stream().allMatch(p -> p.replica().appliedIndex() >= index),
                        "every peer applies entry " + index);
            }
        } finally {
            RatisPeers.closeAll(peers);
        }
    }

    private static RaftGroup group(RaftPeerId id, int port) {
        return RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()),
                RaftPeer.newBuilder().setId(id).setAddress(new InetSocketAddress("127.0.0.1", port)).build());
    }

    /**
     * Ratis stops its executors on close but lets their threads finish on their own: wait for them (bounded). The
     * peer's threads carry its id; those of its Netty server and peer connections (psmr-ratis-*) do not, so they count too.
     */
    private static void assertNoThreadsLeft(Set<Thread> before, RaftPeerId id) throws InterruptedException {
        Set<Thread> started = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t)
                        && (t.getName().contains(id.toString()) || t.getName().startsWith("psmr-ratis-")))
                .collect(Collectors.toSet());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : started) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        Set<String> left = started.stream().filter(Thread::isAlive).map(Thread::getName).collect(Collectors.toSet());
        assertTrue(left.isEmpty(), "threads of " + id + " left running 10 s after it stopped: " + left);
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 15 s: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static Throwable innermost(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static boolean portIsFree(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
