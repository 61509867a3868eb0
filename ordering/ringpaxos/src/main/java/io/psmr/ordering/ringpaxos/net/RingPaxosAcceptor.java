package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.ringpaxos.AcceptorNode;
import io.psmr.ordering.ringpaxos.AcceptorStorage;
import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.StorageChange;
import io.psmr.ordering.ringpaxos.storage.FileAcceptorLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Ring Paxos acceptor on TCP, restartable: an {@link AcceptorNode} in a {@link RingPaxosNode}, on storage
 * restored from a {@link FileAcceptorLog} in its data directory (or in memory without one).
 *
 * <h2>Durability and restart</h2>
 * With a data directory, every change to the acceptor's storage (promise, vote, decision, trim) travels in the
 * {@link io.psmr.ordering.protocol.Ready#writes() writes} of the acceptor's Ready; on the node's event-loop thread
 * the acceptor appends them to the log and, before the Ready's messages are sent, writes the log to the file
 * ({@link RingPaxosNode.Listener#persist}); only then are the messages sent and the core advanced. The writes of a
 * Ready without messages (a decision learnt, a trim) wait in the log's buffer for the next Ready with messages: nothing
 * that depends on them has left, and one write (and, with {@code fsync}, one device flush) covers them all. So an
 * acceptor whose process is killed (SIGKILL) and started again on the same directory has forgotten no
 * promise and no vote. It rejoins having lost only volatile state (the coordinator role, the failure detector,
 * the learners' reports), which is rebuilt from messages: it votes only at or above its restored promise, and if it
 * is the lowest live acceptor it coordinates again only under a fresh ballot above every round it promised or
 * saw, after a Phase 1, never on the state of its previous run. The server socket is bound with
 * {@code SO_REUSEADDR}, so the restarted process can bind its fixed port at once. If the log cannot be written,
 * the node stops without sending (fail-stop). See {@link FileAcceptorLog} for the file format and the
 * {@code fsync} choice.
 *
 * <h2>Threads</h2>
 * All methods may be called from any thread. {@code start} returns once the port is bound and the node runs.
 */
public final class RingPaxosAcceptor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RingPaxosAcceptor.class);

    private final int id;
    private final FileAcceptorLog log;
    private final RingPaxosNode node;
    private final StorageState restored;

    /**
     * A snapshot of an acceptor's storage: what a restart from its data directory must bring back.
     *
     * @param promised  the highest ballot promised
     * @param trimmedTo the trim point
     * @param voted     the held instances with a vote, ascending
     * @param decided   the held instances known decided, ascending
     */
    public record StorageState(Ballot promised, long trimmedTo, SortedSet<Long> voted, SortedSet<Long> decided) {

        /** Copies the sets (unmodifiable). */
        public StorageState {
            Objects.requireNonNull(promised, "promised");
            voted = Collections.unmodifiableSortedSet(new TreeSet<>(voted));
            decided = Collections.unmodifiableSortedSet(new TreeSet<>(decided));
        }

        /** The state of {@code storage}, read on the thread that owns it. */
        static StorageState of(AcceptorStorage storage) {
            SortedSet<Long> voted = new TreeSet<>();
            SortedSet<Long> decided = new TreeSet<>();
            for (StorageChange c : storage.asChanges()) {
                if (c instanceof StorageChange.Voted v) {
                    voted.add(v.instance());
                } else if (c instanceof StorageChange.Decided d) {
                    decided.add(d.instance());
                }
            }
            return new StorageState(storage.promised(), storage.trimmedTo(), voted, decided);
        }
    }

    private RingPaxosAcceptor(RingPaxosConfig config, int id, RingPaxosTransportConfig transport, InetSocketAddress bind,
                              Map<Integer, InetSocketAddress> peers, Path dataDir, boolean fsync) {
        this.id = id;
        try {
            this.log = dataDir == null ? null : FileAcceptorLog.open(dataDir, config.logCapacity(), fsync);
        } catch (IOException e) {
            throw new UncheckedIOException("acceptor " + id + ": cannot open its log in " + dataDir + ": " + e.getMessage(), e);
        }
        AcceptorStorage storage = log == null ? new AcceptorStorage(config.logCapacity()) : log.storage();
        this.restored = StorageState.of(storage); // before the node runs: nothing learnt from peers yet
        AcceptorNode core = new AcceptorNode(config, id, storage);
        TrimStallLog stallLog = new TrimStallLog(core, TrimStallLog.INTERVAL);
        try {
            this.node = RingPaxosNode.start(core, config, transport, bind, peers, new RingPaxosNode.Listener() {
                @Override
                public void persist(List<StorageChange> writes, boolean sending) {
                    if (log != null) {
                        log.append(writes);
                        if (sending) {
                            log.flush();
                        }
                    }
                }

                @Override
                public void onTick() {
                    stallLog.onTick();
                }
            });
        } catch (RuntimeException e) {
            if (log != null) {
                log.close();
            }
            throw e;
        }
        LOG.info("acceptor {} listening on {} ({}; promised {}, trimmed to {}, {} instances held)", id,
                node.localAddress(), log == null ? "in memory" : log, storage.promised(), storage.trimmedTo(), storage.size());
    }

    /**
     * Starts an acceptor whose log, if any, is written to the operating system before each send but not forced to
     * the device (survives the process's crash, not the machine's).
     *
     * @see #start(RingPaxosConfig, int, RingPaxosTransportConfig, InetSocketAddress, Map, Path, boolean)
     */
    public static RingPaxosAcceptor start(RingPaxosConfig config, int id, RingPaxosTransportConfig transport,
                                          InetSocketAddress bind, Map<Integer, InetSocketAddress> peers, Path dataDir) {
        return start(config, id, transport, bind, peers, dataDir, false);
    }

    /**
     * Restores the acceptor's storage from {@code dataDir}, binds {@code bind} and starts the node.
     *
     * @param config    the cluster
     * @param id        this acceptor's id, one of {@link RingPaxosConfig#acceptors()}
     * @param transport transport settings
     * @param bind      where to listen; a fixed port for a restartable acceptor (port 0 picks a free one)
     * @param peers     every node's address by id (see {@link RingPaxosNode#start})
     * @param dataDir   this acceptor's own directory for its {@link FileAcceptorLog} (created if missing, restored if
     *                  present), or null for in-memory storage that a restart loses
     * @param fsync     whether each write of the log is also forced to the device (machine crashes)
     * @throws UncheckedIOException if the log cannot be opened (damaged, locked by another acceptor, unreadable)
     * @throws RuntimeException     from Netty if the port cannot be bound
     */
    public static RingPaxosAcceptor start(RingPaxosConfig config, int id, RingPaxosTransportConfig transport,
                                          InetSocketAddress bind, Map<Integer, InetSocketAddress> peers, Path dataDir,
                                          boolean fsync) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(peers, "peers");
        return new RingPaxosAcceptor(config, id, transport, bind, peers, dataDir, fsync);
    }

    /** This acceptor's id. */
    public int id() {
        return id;
    }

    /** Where the acceptor listens. */
    public InetSocketAddress localAddress() {
        return node.localAddress();
    }

    /** The node (for its counters). */
    public RingPaxosNode node() {
        return node;
    }

    /**
     * Whether this acceptor coordinates with a completed Phase 1, asked on its event-loop thread. Fails with
     * {@link java.util.concurrent.RejectedExecutionException} if the acceptor is closed.
     */
    public CompletableFuture<Boolean> isCoordinator() {
        return node.call(core -> ((AcceptorNode) core).isCoordinator());
    }

    /**
     * The storage as restored from the data directory when this acceptor started, before the node received any
     * message (empty for in-memory storage or a new directory). Any thread.
     */
    public StorageState restoredState() {
        return restored;
    }

    /**
     * The storage's current state, read on the event-loop thread. Fails with
     * {@link java.util.concurrent.RejectedExecutionException} if the acceptor is closed.
     */
    public CompletableFuture<StorageState> storageState() {
        return node.call(core -> StorageState.of(((AcceptorNode) core).storage()));
    }

    /** Stops the node (its port is released), then writes what is buffered and closes the log. Idempotent. */
    @Override
    public void close() {
        node.close();
        if (log != null) {
            log.close();
        }
    }

    @Override
    public String toString() {
        return "RingPaxosAcceptor[" + id + " at " + node.localAddress() + "]";
    }
}
