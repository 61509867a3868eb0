package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.ringpaxos.AcceptorNode;
import io.psmr.ordering.ringpaxos.AcceptorStorage;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A whole Ring Paxos cluster in one JVM over loopback sockets: {@code acceptors} acceptor nodes (ids
 * 0..a-1, in-memory storage), {@code learners} {@link RingPaxosBroadcast adapters} (learner ids 100..),
 * the first of which also holds the one proposer (id 200). Every node binds a free port on
 * 127.0.0.1. What the end-to-end tests and {@code ./psmr bench e2e --ordering ringpaxos} run.
 *
 * <p>Hand {@link #broadcast(int)} to whatever subscribes (a replica) and {@link #proposing()} to
 * whatever proposes (a client proxy); they may be the same adapter. Thread-safe; close it once.
 */
public final class LoopbackRingPaxos implements AutoCloseable {

    /** {@link RingPaxosConfig#learnerSilenceTicks()} here: about 116 days at a 10 ms tick, so never. */
    static final int NEVER_LEFT_OUT = 1_000_000_000;


    /** The first learner id; learner {@code i} is {@code LEARNER_BASE + i}. */
    public static final int LEARNER_BASE = 100;
    /** The proposer's id (in {@link #proposing()}). */
    public static final int PROPOSER_ID = 200;

    private final RingPaxosConfig config;
    private final Map<Integer, InetSocketAddress> peers = new ConcurrentHashMap<>();
    private final Map<Integer, RingPaxosNode> acceptors = new TreeMap<>();
    private final List<RingPaxosBroadcast> broadcasts = new ArrayList<>();
    private final Object coordinatorLock = new Object();
    // guarded by coordinatorLock: acceptors whose latest tick saw them coordinate. A set, not one id:
    // during a takeover two may briefly believe it, and the one that keeps it never reports again.
    private final SortedSet<Integer> believers = new TreeSet<>();

    private LoopbackRingPaxos(int acceptorCount, int learnerCount, RingPaxosTransportConfig transport) {
        List<Integer> acceptorIds = new ArrayList<>();
        for (int i = 0; i < acceptorCount; i++) {
            acceptorIds.add(i);
        }
        List<Integer> learnerIds = new ArrayList<>();
        for (int i = 0; i < learnerCount; i++) {
            learnerIds.add(LEARNER_BASE + i);
        }
        // These learners report deliveries, not checkpoints, and have no state transfer: a learner left
        // out of the trim point could never come back, so the acceptors never leave one out here.
        this.config = RingPaxosConfig.of(acceptorIds, learnerIds, List.of(PROPOSER_ID))
                .withLearnerSilenceTicks(NEVER_LEFT_OUT);
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        try {
            for (int id : acceptorIds) {
                AcceptorNode core = new AcceptorNode(config, id, new AcceptorStorage(config.logCapacity()));
                TrimStallLog stallLog = new TrimStallLog(core, TrimStallLog.INTERVAL);
                RingPaxosNode node = RingPaxosNode.start(core, config, transport, any, peers, new RingPaxosNode.Listener() {
                    private boolean was; // event-loop thread only

                    @Override
                    public void onTick() {
                        stallLog.onTick();
                        boolean is = core.isCoordinator();
                        if (is != was) {
                            was = is;
                            coordinatorChanged(id, is);
                        }
                    }
                });
                synchronized (acceptors) {
                    acceptors.put(id, node);
                }
                peers.put(id, node.localAddress());
            }
            for (int i = 0; i < learnerCount; i++) {
                RingPaxosBroadcast.Builder b = RingPaxosBroadcast.builder(config, learnerIds.get(i), transport, peers);
                if (i == 0) {
                    b.proposer(PROPOSER_ID);
                }
                RingPaxosBroadcast rp = b.build();
                broadcasts.add(rp);
                peers.put(learnerIds.get(i), rp.learnerAddress());
                if (i == 0) {
                    peers.put(PROPOSER_ID, rp.proposerAddress());
                }
            }
            broadcasts.forEach(RingPaxosBroadcast::start);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Starts the cluster; every node runs when this returns.
     *
     * @param acceptors 2f+1 acceptors, at least 1
     * @param learners  adapters, at least 1; the first also proposes
     * @param transport every node's transport settings (its {@code maxValueBytes} bounds a proposal)
     */
    public static LoopbackRingPaxos start(int acceptors, int learners, RingPaxosTransportConfig transport) {
        if (acceptors < 1 || learners < 1) {
            throw new IllegalArgumentException("need at least 1 acceptor and 1 learner, got " + acceptors + " and " + learners);
        }
        return new LoopbackRingPaxos(acceptors, learners, Objects.requireNonNull(transport, "transport"));
    }

    /** The cluster's configuration. */
    public RingPaxosConfig config() {
        return config;
    }

    /** Learner {@code i}'s adapter (0-based); adapter 0 also proposes. */
    public RingPaxosBroadcast broadcast(int i) {
        return broadcasts.get(i);
    }

    /** The adapter that holds the proposer (adapter 0). */
    public RingPaxosBroadcast proposing() {
        return broadcasts.get(0);
    }

    /** Ids of the acceptors still running, ascending. */
    public List<Integer> liveAcceptors() {
        synchronized (acceptors) {
            return List.copyOf(acceptors.keySet());
        }
    }

    /**
     * The live acceptor that believes it coordinates, or -1 if none does (for example during an election).
     *
     * @throws TimeoutException if an acceptor does not answer within {@code timeoutMillis}
     */
    public int coordinator(long timeoutMillis) throws InterruptedException, ExecutionException, TimeoutException {
        List<Map.Entry<Integer, RingPaxosNode>> nodes;
        synchronized (acceptors) {
            nodes = List.copyOf(acceptors.entrySet());
        }
        for (Map.Entry<Integer, RingPaxosNode> e : nodes) {
            if (e.getValue().call(core -> ((AcceptorNode) core).isCoordinator()).get(timeoutMillis, TimeUnit.MILLISECONDS)) {
                return e.getKey();
            }
        }
        return -1;
    }

    private void coordinatorChanged(int id, boolean is) {
        synchronized (coordinatorLock) {
            if (is) {
                believers.add(id);
            } else {
                believers.remove(id);
            }
            coordinatorLock.notifyAll();
        }
    }

    /**
     * Waits until exactly one live acceptor coordinates with a completed Phase 1 (seen at its tick),
     * so that a run timed from now does not include an election.
     *
     * @return the coordinator's id, or -1 on timeout
     */
    public int awaitCoordinator(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitCoordinator(-1, timeout, unit);
    }

    /**
     * Waits until acceptor {@code id} is the only live acceptor that coordinates. Under load a
     * follower may suspect a slow coordinator and take over for a while; this waits that out.
     *
     * @param id the expected coordinator, or -1 for any
     * @return the coordinator's id, or -1 on timeout
     */
    public int awaitCoordinator(int id, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (coordinatorLock) {
            while (true) {
                List<Integer> live = liveAcceptors();
                List<Integer> coordinating = believers.stream().filter(live::contains).toList();
                if (coordinating.size() == 1 && (id < 0 || coordinating.get(0) == id)) {
                    return coordinating.get(0);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return -1;
                }
                TimeUnit.NANOSECONDS.timedWait(coordinatorLock, left);
            }
        }
    }

    /** Closes acceptor {@code id}'s node (a crash: its in-memory storage is lost). @return false if it was not running */
    public boolean closeAcceptor(int id) {
        RingPaxosNode node;
        synchronized (acceptors) {
            node = acceptors.remove(id);
        }
        if (node == null) {
            return false;
        }
        node.close();
        coordinatorChanged(id, false);
        return true;
    }

    /** Closes the adapters (their subscriptions first: close replicas before this), then the acceptors. */
    @Override
    public void close() {
        broadcasts.forEach(RingPaxosBroadcast::close);
        List<RingPaxosNode> nodes;
        synchronized (acceptors) {
            nodes = List.copyOf(acceptors.values());
            acceptors.clear();
        }
        nodes.forEach(RingPaxosNode::close);
    }
}
