package io.psmr.kvstore.ratis;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.ordering.transport.LinkSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * One peer of a Ratis group with psmr as its execution layer: a Ratis server (Ratis' Netty RPC on a
 * fixed port, its log and snapshots in its own storage directory) whose state machine is a
 * {@link RatisReplica}. What {@link EmbeddedRatisCluster} runs N of in one JVM, and what a cluster node
 * process runs one of. Also builds the Raft clients that propose to such a group.
 *
 * <p>A peer started with {@code recover} reads its storage directory: it loads its latest snapshot
 * into a fresh store and Ratis replays the log after it, or sends it the leader's snapshot if the
 * leader purged that log. Without {@code recover} the directory is formatted.
 *
 * <p>A peer that cannot start throws, naming itself, its address and the cause; one whose Ratis thread
 * dies later stops and reports it through {@link #failure()}. Neither ends the JVM ({@link RatisSystemExit}).
 *
 * <p>Thread-safe for the queries; close once.
 */
public final class RatisPeer implements AutoCloseable {

    private final RaftGroup group;
    private final RaftServer server;
    private final RatisReplica replica;
    private final RatisPeerThreads threads;

    private RatisPeer(RaftGroup group, RaftServer server, RatisReplica replica, RatisPeerThreads threads) {
        this.group = group;
        this.server = server;
        this.replica = replica;
        this.threads = threads;
    }

    /**
     * Starts the peer. Before the first peer of the JVM starts, disables Ratis' {@link System#exit}
     * ({@link RatisSystemExit}): a peer that cannot start is this method's exception, never the end of the JVM.
     *
     * <p>Called from one thread; blocks while Ratis starts the server (formats or recovers its storage,
     * binds its port).
     *
     * @param config            the replica's configuration (its id is the replica id in replies)
     * @param group             the whole group, this peer included
     * @param id                this peer's Ratis id
     * @param port              its Raft RPC port on 127.0.0.1 (fixed: it is part of the group's configuration)
     * @param storage           its storage directory (created if missing)
     * @param autoSnapshotEvery a snapshot every this many applied entries, the log purged up to it; 0 for none
     * @param recover           restart from {@code storage} rather than format it
     * @throws IOException if the server cannot start, as {@code Ratis peer ID could not start on
     *                     127.0.0.1:PORT: CAUSE} (the innermost cause's message, e.g. the bind's
     *                     "Address already in use"); the server's threads, port and storage lock are released
     */
    public static RatisPeer start(ReplicaConfig config, RaftGroup group, RaftPeerId id, int port, Path storage,
                                  long autoSnapshotEvery, boolean recover) throws IOException {
        return start(config, group, id, address(port), storage, autoSnapshotEvery, recover, RatisDurability.SYNC);
    }

    /**
     * As {@link #start(ReplicaConfig, RaftGroup, RaftPeerId, int, Path, long, boolean)}, storing the log with
     * {@code durability} ({@link RatisDurability#SYNC} is Raft's failure model; the others lose acknowledged
     * batches in the crashes their Javadoc names).
     */
    public static RatisPeer start(ReplicaConfig config, RaftGroup group, RaftPeerId id, int port, Path storage,
                                  long autoSnapshotEvery, boolean recover, RatisDurability durability) throws IOException {
        return start(config, group, id, address(port), storage, autoSnapshotEvery, recover, durability);
    }

    /**
     * As {@link #start(ReplicaConfig, RaftGroup, RaftPeerId, int, Path, long, boolean)}, bound to {@code bind}
     * (its host and Raft RPC port, as the group names this peer) rather than 127.0.0.1; a failure names that host and port.
     */
    public static RatisPeer start(ReplicaConfig config, RaftGroup group, RaftPeerId id, InetSocketAddress bind, Path storage,
                                  long autoSnapshotEvery, boolean recover) throws IOException {
        return start(config, group, id, bind, storage, autoSnapshotEvery, recover, RatisDurability.SYNC);
    }

    /** The peer bound to {@code bind}, its log stored with {@code durability}, over plain TCP. */
    public static RatisPeer start(ReplicaConfig config, RaftGroup group, RaftPeerId id, InetSocketAddress bind, Path storage,
                                  long autoSnapshotEvery, boolean recover, RatisDurability durability) throws IOException {
        return start(config, group, id, bind, storage, autoSnapshotEvery, recover, durability, LinkSecurity.plain());
    }

    /**
     * The peer bound to {@code bind}, its log stored with {@code durability}, its connections (to and from peers and
     * clients) under {@code security}: the form every other {@code start} calls.
     */
    public static RatisPeer start(ReplicaConfig config, RaftGroup group, RaftPeerId id, InetSocketAddress bind, Path storage,
                                  long autoSnapshotEvery, boolean recover, RatisDurability durability,
                                  LinkSecurity security) throws IOException {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(security, "security");
        int port = bind.getPort();
        String host = bind.getHostString();
        if (autoSnapshotEvery < 0) {
            throw new IllegalArgumentException("autoSnapshotEvery must be at least 0, got " + autoSnapshotEvery);
        }
        RatisSystemExit.disable();
        String name = id + " on " + host + ":" + port;
        RatisPeerThreads threads = new RatisPeerThreads(name);
        RatisReplica replica = RatisReplica.create(config);
        RaftServer server = null;
        try {
            server = RaftServer.newBuilder()
                    .setServerId(id)
                    .setGroup(group)
                    .setProperties(serverProperties(config.limits(), host, port, Files.createDirectories(storage), autoSnapshotEvery,
                            durability))
                    .setStateMachine(replica.stateMachine())
                    .setParameters(parameters(security, group))
                    .setOption(recover ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                    .setThreadGroup(threads)
                    .build();
            // A port that cannot be bound is RatisNettyRpc's UncheckedIOException here, after the divisions started:
            // unchecked, so that server.close() below closes them (Ratis' close skips a server whose start threw
            // an IOException).
            server.start();
            RaftServer started = server;
            threads.started(() -> closeQuietly(started));
            if (threads.failure() != null) {
                throw threads.failure(); // a Ratis thread died while the server started
            }
            return new RatisPeer(group, server, replica, threads);
        } catch (IOException | RuntimeException e) {
            // A server built but not started (port taken, storage locked or unreadable) holds threads, its port and
            // its storage lock: release them before the replica (Ratis' close joins the divisions' threads, shuts
            // down its executors and Netty's event loops).
            IOException failed = new IOException("Ratis peer " + id + " could not start on " + host
                    + ":" + port + ": " + innermostMessage(e), e);
            if (server != null) {
                try {
                    server.close();
                } catch (IOException | RuntimeException closing) {
                    failed.addSuppressed(closing);
                }
            }
            try {
                replica.close();
            } catch (RuntimeException closing) {
                failed.addSuppressed(closing);
            }
            throw failed;
        }
    }

    /**
     * Why this peer stopped on its own, or empty while it runs (or was closed by its owner). A Ratis daemon
     * thread of the peer that dies of an uncaught exception marks the peer failed and stops its server
     * (the replica's store stays readable until {@link #close}); the exception names the peer, its
     * address, the thread and the cause. Any thread; does not block.
     */
    public Optional<IllegalStateException> failure() {
        return Optional.ofNullable(threads.failure());
    }

    /** The thread group of this peer's Ratis daemon threads (tests inject a dying thread into it). */
    ThreadGroup threads() {
        return threads;
    }

    /** The replica: its store, digest and applied index. */
    public RatisReplica replica() {
        return replica;
    }

    /** Whether this peer leads the group and is ready to serve as leader. */
    public boolean isLeader() {
        try {
            return server.getDivision(group.getGroupId()).getInfo().isLeaderReady();
        } catch (IOException e) {
            return false; // not serving the group yet
        }
    }

    /** The highest index this peer knows committed, or -1 while it does not serve the group. */
    public long committedIndex() {
        try {
            return server.getDivision(group.getGroupId()).getRaftLog().getLastCommittedIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The first index still in this peer's log (entries before it are only in snapshots). */
    public long logStartIndex() throws IOException {
        return server.getDivision(group.getGroupId()).getRaftLog().getStartIndex();
    }

    /**
     * Closes {@code peers} together, one thread each, and returns once all are closed; rethrows the first
     * failure. A peer's close waits for its Ratis log worker, which notices the close only at its next
     * one-second poll of its queue (SegmentedRaftLogWorker), so closing peers one after another waited up to a
     * second per peer for nothing. Close a leader on its own first: a follower that closes while the leader
     * still replicates to it logs Ratis' "Failed appendEntries" with a stack trace, which reads like a fault.
     */
    static void closeTogether(List<RatisPeer> peers) {
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        List<Thread> closing = new ArrayList<>();
        for (RatisPeer p : peers) {
            Thread t = new Thread(() -> {
                try {
                    p.close();
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e); // thrown below, as a close one after another threw it
                }
            }, "close-ratis-peer");
            t.start();
            closing.add(t);
        }
        boolean interrupted = false;
        for (Thread t : closing) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /** Closes the server, then the replica; blocks until Ratis has stopped the server. */
    @Override
    public void close() {
        threads.closing();
        try {
            server.close();
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(RatisPeer.class).warn("closing Ratis server {} failed", server.getId(), e);
        } finally {
            replica.close();
        }
    }

    private static void closeQuietly(RaftServer server) {
        try {
            server.close();
        } catch (IOException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(RatisPeer.class).warn("stopping failed Ratis server {} failed", server.getId(), e);
        }
    }

    /** The message of the deepest cause (the bind's "Address already in use" under Netty's and Ratis' wrappers). */
    private static String innermostMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    private static Parameters parameters(LinkSecurity security, RaftGroup group) {
        Parameters p = new Parameters();
        p.put(RatisNettyRpc.SECURITY, security, LinkSecurity.class);
        p.put(RatisNettyRpc.GROUP, group, RaftGroup.class);
        return p;
    }

    /**
     * A Raft client for {@code group}: Ratis' Netty wire through psmr's client RPC ({@link RatisClientRpc}: no message
     * size limit, so any batch fits, and no lock cycle when a connection fails), a 3 s request timeout, at most
     * {@code maxOutstanding} async requests, and retries forever 50 ms apart (a stopped leader: try the others after a
     * pause, not in a hot loop). Plain TCP.
     */
    public static RaftClient newClient(RaftGroup group, int maxOutstanding) {
        return newClient(group, maxOutstanding, LinkSecurity.plain());
    }

    /** As {@link #newClient(RaftGroup, int)}, its connections under {@code security}. */
    public static RaftClient newClient(RaftGroup group, int maxOutstanding, LinkSecurity security) {
        return newClient(group, maxOutstanding, Objects.requireNonNull(security, "security"), true);
    }

    /**
     * A Raft client for {@code group} for Ratis' admin APIs (snapshot management and the like), which psmr's client
     * RPC ({@link RatisClientRpc}) does not carry: Ratis' own Netty client RPC, plain TCP only, otherwise as
     * {@link #newClient}.
     */
    public static RaftClient newAdminClient(RaftGroup group) {
        return newClient(group, 1, LinkSecurity.plain(), false);
    }

    private static RaftClient newClient(RaftGroup group, int maxOutstanding, LinkSecurity security, boolean psmrRpc) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.NETTY);
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        RaftClientConfigKeys.Async.setOutstandingRequestsMax(p, maxOutstanding);
        org.apache.ratis.protocol.ClientId id = org.apache.ratis.protocol.ClientId.randomId();
        RaftClient.Builder b = RaftClient.newBuilder().setProperties(p).setClientId(id);
        if (psmrRpc) {
            b.setClientRpc(RatisClientRpc.create(id, p, security)); // Ratis' Netty client RPC without its lock cycle
        }
        return b
                .setRaftGroup(group)
                .setRetryPolicy(RetryPolicies.retryForeverWithSleep(TimeDuration.valueOf(50, TimeUnit.MILLISECONDS)))
                .build();
    }

    /** The address of a peer on this machine. */
    public static InetSocketAddress address(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }

    private static RaftProperties serverProperties(KvLimits limits, String host, int port, Path storage, long autoSnapshotEvery,
                                                   RatisDurability durability) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, new RatisNettyRpc()); // Ratis' Netty wire, served by psmr
        NettyConfigKeys.Server.setHost(p, host);
        NettyConfigKeys.Server.setPort(p, port);
        RaftServerConfigKeys.setStorageDir(p, List.of(storage.toFile()));
        // Elections: short enough that a killed leader is replaced in about a second, long enough
        // that a loaded 2-core machine does not trigger spurious ones.
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(500, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(1000, TimeUnit.MILLISECONDS));
        // Entries are whole batches: segments and the appender's buffer must hold the largest one. Ratis' Netty RPC
        // (3.3.0) frames messages with no size limit and has no setting for one, so messages need none here.
        int maxBatch = limits.maxBatchBytes();
        SizeInBytes entryRoom = SizeInBytes.valueOf(entryRoom(limits));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, entryRoom);
        // The log worker's write buffer must hold one entry of that size and its 8 bytes of framing (Ratis refuses to
        // start a peer otherwise): Ratis' 8 MiB default, or more for batches over 3.5 MiB.
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(Math.max(8L << 20, entryRoom(limits) + 8)));
        // Segments hold two of the largest batches: small enough that a purge after a snapshot
        // frees log (only closed segments are purged), never too small for one entry.
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(2L * maxBatch + (64 << 10)));
        RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf(64 << 10));
        // Snapshots: purge the log up to each one, so a peer that was away long enough needs the snapshot.
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, autoSnapshotEvery > 0);
        if (autoSnapshotEvery > 0) {
            RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, autoSnapshotEvery);
        }
        RaftServerConfigKeys.Snapshot.setCreationGap(p, 1);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, 1);
        durability.apply(p);
        return p;
    }

    /** Room for one log entry, a whole batch, with slack for Ratis' framing: at least 4 MiB. */
    private static long entryRoom(KvLimits limits) {
        return Math.max(4L << 20, 2L * limits.maxBatchBytes() + (1 << 20));
    }
}
