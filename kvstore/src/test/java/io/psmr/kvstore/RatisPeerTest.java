package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.util.ExitUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link RatisPeer#start}: a peer that fails to start leaves nothing behind. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RatisPeerTest {

    @TempDir
    Path dir;

    @Test
    void aPeerThatCannotBindItsPortLeavesNoThreadsAndItsStorageFree() throws Exception {
        // Ratis terminates the JVM when a server fails to start; here it throws instead (this JVM only).
        ExitUtils.disableSystemExit();
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        RaftPeerId id = RaftPeerId.valueOf("failing-peer");
        int port;
        RaftGroup group;
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            port = taken.getLocalPort();
            group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()),
                    RaftPeer.newBuilder().setId(id).setAddress(new InetSocketAddress("127.0.0.1", port)).build());
            assertThrows(Exception.class,
                    () -> RatisPeer.start(ReplicaTest.config(), group, id, port, dir.resolve("peer"), 0, false).close(),
                    "the port is taken");
        }
        // Ratis stops its executors on close but lets their threads finish on their own: wait for them
        // (bounded), then insist that none of the peer's threads is still alive.
        Set<Thread> started = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.getName().contains(id.toString())).collect(Collectors.toSet());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : started) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        Set<String> left = started.stream().filter(Thread::isAlive).map(Thread::getName).collect(Collectors.toSet());
        assertTrue(left.isEmpty(), "threads left running 10 s after the failed start: " + left);
        // The port is free now: the storage the failed start formatted opens again, so that start released its lock.
        try (RatisPeer peer = RatisPeer.start(ReplicaTest.config(), group, id, port, dir.resolve("peer"), 0, true)) {
            assertTrue(peer.committedIndex() >= -1);
        }
    }
}
