package io.psmr.kvstore.ratis;

import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.ratis.RatisOrderingClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replicated store over Apache Ratis in one JVM: N Ratis servers on loopback (Ratis' Netty RPC, free
 * ports), each with a {@link RatisReplica} as its state machine and its own storage directory,
 * plus one {@link RatisOrderingClient} that proxies propose to and whose replies go to a
 * {@link LocalReplyRouter}. What {@code ./psmr load --ordering ratis} runs, and what the tests run;
 * it can stop, restart and snapshot single peers.
 *
 * <p>Peers have ids 1..N (Ratis peer ids {@code p1..pN}). A stopped peer keeps its storage
 * directory; {@link #restart} starts it with a fresh in-memory store that loads its latest snapshot
 * and replays the log after it, or receives the leader's snapshot if the leader has purged that log.
 *
 * <p>A peer that cannot start fails {@link #start} or {@link #restart} with an error naming it, its
 * address and the cause; a peer that stops on its own later (a Ratis thread of it died: {@link
 * RatisPeer#failure()}) fails {@link #awaitLeader}, {@link #awaitQuiescent}, {@link #digests} and
 * {@link #checkPeers}. Neither ends the JVM, although Ratis alone would ({@link RatisPeer#start}).
 *
 * <p>Thread-safe for proposals; stop, restart, snapshot and close from one thread.
 */
public final class EmbeddedRatisCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRatisCluster.class);

    /** Most proposals in flight through the cluster's ordering client: the CLI's largest window. */
    public static final int MAX_OUTSTANDING = 1024;

    private final ReplicaConfig base;
    private final Path dir;
    private final long autoSnapshotEvery;
    private final RatisDurability durability;
    private final RaftGroup group;
    private final List<RaftPeer> peers;
    private final int[] ports;
    private final RatisPeer[] running;
    private final LocalReplyRouter router = new LocalReplyRouter();
    private final RatisOrderingClient client;

    private EmbeddedRatisCluster(int n, ReplicaConfig base, Path dir, long autoSnapshotEvery, RatisDurability durability)
            throws IOException {
        this.base = base;
        this.dir = dir;
        this.autoSnapshotEvery = autoSnapshotEvery;
        this.durability = durability;
        List<RaftPeer> ps = new ArrayList<>(n);
        this.ports = new int[n];
        for (int id = 1; id <= n; id++) {
            // A peer keeps its port across restarts: it is part of the group's configuration.
            ports[id - 1] = freePort();
            ps.add(RaftPeer.newBuilder().setId(peerId(id)).setAddress(new InetSocketAddress("127.0.0.1", ports[id - 1]))
                    .build());
        }
        this.peers = List.copyOf(ps);
        this.group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), peers);
        this.running = new RatisPeer[n];
        try {
            for (int id = 1; id <= n; id++) {
                startPeer(id, false);
            }
        } catch (IOException | RuntimeException e) {
            closePeers();
            throw e;
        }
        this.client = new RatisOrderingClient(RatisPeer.newClient(group, MAX_OUTSTANDING), this::routeReplies,
                MAX_OUTSTANDING);
        client.start();
    }

    /**
     * Starts {@code n} peers configured like {@code base} (ids 1..n; a persisted store gets the suffix
     * {@code .id} on its path), storing Ratis logs and snapshots under {@code dir}.
     *
     * @param autoSnapshotEvery take a snapshot every this many applied entries and purge the log up to
     *                          it; 0 for snapshots only on request ({@link #snapshot})
     * @throws UncheckedIOException if a server cannot start
     */
    public static EmbeddedRatisCluster start(int n, ReplicaConfig base, Path dir, long autoSnapshotEvery) {
        return start(n, base, dir, autoSnapshotEvery, RatisDurability.SYNC);
    }

    /**
     * As {@link #start(int, ReplicaConfig, Path, long)}, every peer storing its log with {@code durability}
     * ({@link RatisDurability#SYNC}, Raft's failure model, is what the other overload uses).
     *
     * @throws UncheckedIOException if a server cannot start
     */
    public static EmbeddedRatisCluster start(int n, ReplicaConfig base, Path dir, long autoSnapshotEvery, RatisDurability durability) {
        Objects.requireNonNull(durability, "durability");
        if (n < 1) {
            throw new IllegalArgumentException("a cluster needs at least 1 replica, got " + n);
        }
        if (autoSnapshotEvery < 0) {
            throw new IllegalArgumentException("autoSnapshotEvery must be at least 0, got " + autoSnapshotEvery);
        }
        try {
            return new EmbeddedRatisCluster(n, Objects.requireNonNull(base, "base"), Objects.requireNonNull(dir, "dir"),
                    autoSnapshotEvery, durability);
        } catch (IOException e) {
            throw new UncheckedIOException("the Ratis cluster did not start: " + e.getMessage(), e);
        }
    }

    /** The ordering layer proxies propose to; its replies go to {@link #router()}. */
    public RatisOrderingClient broadcast() {
        return client;
    }

    /** The router proxies register their reply channels with. */
    public LocalReplyRouter router() {
        return router;
    }

    /** How every peer stores its log. */
    public RatisDurability durability() {
        return durability;
    }

    /** Number of peers, running or stopped. */
    public int size() {
        return peers.size();
    }

    /** The replica of peer {@code id}, or null while it is stopped. */
    public synchronized RatisReplica replica(int id) {
        return running[id - 1] == null ? null : running[id - 1].replica();
    }

    /** Peer {@code id}, or null while it is stopped (tests inject faults through it). */
    synchronized RatisPeer peer(int id) {
        return running[id - 1];
    }

    /** The running replicas, in id order. */
    public synchronized List<RatisReplica> replicas() {
        List<RatisReplica> r = new ArrayList<>();
        for (RatisPeer x : running) {
            if (x != null) {
                r.add(x.replica());
            }
        }
        return r;
    }

    /**
     * Waits until a running peer is the leader.
     *
     * @return its id, or 0 on timeout
     * @throws IllegalStateException if a peer stopped on its own ({@link #checkPeers})
     */
    public int awaitLeader(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        do {
            checkPeers();
            int id = leader();
            if (id > 0) {
                return id;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        return 0;
    }

    private synchronized int leader() {
        for (int i = 0; i < running.length; i++) {
            if (running[i] != null && running[i].isLeader()) {
                return i + 1;
            }
        }
        return 0;
    }

    /**
     * Throws if a running peer stopped on its own: a Ratis thread of it died and it closed its server
     * ({@link RatisPeer#failure()}). A stopped peer ({@link #stop}) is not a failure. Any thread; does not block
     * beyond the cluster's lock.
     *
     * @throws IllegalStateException naming the first such peer (lowest id), its address, the thread and the cause
     */
    public synchronized void checkPeers() {
        for (RatisPeer p : running) {
            if (p != null && p.failure().isPresent()) {
                IllegalStateException f = p.failure().get();
                throw new IllegalStateException(f.getMessage(), f);
            }
        }
    }

    /** The highest log index committed on any running peer, or -1. */
    public synchronized long committedIndex() {
        long max = -1;
        for (RatisPeer s : running) {
            if (s != null) {
                max = Math.max(max, s.committedIndex());
            }
        }
        return max;
    }

    /**
     * Waits until every running replica has executed every entry committed so far.
     *
     * @return false on timeout
     * @throws IllegalStateException if a peer stopped on its own ({@link #checkPeers})
     */
    public boolean awaitQuiescent(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        long target = committedIndex();
        while (true) {
            checkPeers();
            boolean all = true;
            for (RatisReplica r : replicas()) {
                all &= r.appliedIndex() >= target;
            }
            long now = committedIndex();
            if (all && now == target) {
                return true;
            }
            target = Math.max(target, now);
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.sleep(10);
        }
    }

    /**
     * Each running replica's digest, in id order; compare only after {@link #awaitQuiescent}.
     *
     * @throws IllegalStateException if a peer stopped on its own ({@link #checkPeers})
     */
    public List<Long> digests() {
        checkPeers();
        List<Long> d = new ArrayList<>();
        for (RatisReplica r : replicas()) {
            d.add(r.digest());
        }
        return d;
    }

    /**
     * Asks peer {@code id} to take a snapshot now (through Ratis' snapshot management API).
     *
     * @return the log index the snapshot covers
     */
    public long snapshot(int id, long timeoutMillis) throws IOException {
        try (RaftClient admin = RatisPeer.newAdminClient(group)) {
            RaftClientReply reply = admin.getSnapshotManagementApi(peerId(id)).create(timeoutMillis);
            if (!reply.isSuccess()) {
                throw new IOException("peer " + id + " did not take a snapshot: " + reply.getException(), reply.getException());
            }
            return reply.getLogIndex();
        }
    }

    /** The first index still in peer {@code id}'s log (entries before it are only in snapshots). */
    public synchronized long logStartIndex(int id) throws IOException {
        RatisPeer s = running[id - 1];
        if (s == null) {
            throw new IllegalStateException("peer " + id + " is stopped");
        }
        return s.logStartIndex();
    }

    /** Stops peer {@code id}: closes its server and its replica; its storage stays. */
    public synchronized void stop(int id) {
        RatisPeer s = running[id - 1];
        running[id - 1] = null;
        if (s != null) {
            s.close();
        }
    }

    /** Starts stopped peer {@code id} again from its storage directory, with a fresh store. */
    public synchronized void restart(int id) throws IOException {
        if (running[id - 1] != null) {
            throw new IllegalStateException("peer " + id + " is running");
        }
        startPeer(id, true);
    }

    private synchronized void startPeer(int id, boolean recover) throws IOException {
        StoreConfig store = base.store();
        if (store.path() != null) {
            store = store.persistedTo(Path.of(store.path() + "." + id));
        }
        running[id - 1] = RatisPeer.start(base.toBuilder().replicaId(id).store(store).build(), group, peerId(id),
                ports[id - 1], dir.resolve("peer-" + id), autoSnapshotEvery, recover, durability);
    }

    private void routeReplies(byte[] bytes) {
        List<KvReply> list;
        try {
            list = KvCodec.decodeReplies(bytes);
        } catch (KvDecodeException e) {
            LOG.error("a Ratis reply is not a list of key-value replies: {}", e.getMessage());
            return;
        }
        for (KvReply r : list) {
            router.route(r);
        }
    }

    private static RaftPeerId peerId(int id) {
        return RaftPeerId.valueOf("p" + id);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private synchronized void closePeers() {
        // The leader first: a follower that closes while the leader still replicates to it logs Ratis'
        // "Failed appendEntries ... current state is CLOSING" with a stack trace, which reads like a fault.
        int leader = leader();
        if (leader > 0) {
            stop(leader);
        }
        // Then the others together (RatisPeer.closeTogether says why).
        List<RatisPeer> rest = new ArrayList<>();
        for (int id = 1; id <= running.length; id++) {
            if (running[id - 1] != null) {
                rest.add(running[id - 1]);
                running[id - 1] = null;
            }
        }
        RatisPeer.closeTogether(rest);
    }

    /** Closes the ordering client, then every peer. Leaves the storage directory to the caller. Idempotent. */
    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        closePeers();
    }
}
