package io.psmr.ordering.ringpaxos;

import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.protocol.sim.SimulatedNetwork;
import io.psmr.ordering.ringpaxos.storage.FileAcceptorLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A whole Ring Paxos cluster in one thread over a {@link SimulatedNetwork}, driven by one seeded
 * {@link Random}: the same seed gives the same run, message for message.
 *
 * <p>The network ({@link #network}) loses, duplicates, delays and (through random delays) reorders messages. Acceptors
 * crash and restart; a crash drops the node object (its volatile state) and keeps its
 * {@link AcceptorStorage}, which models storage the host made durable before sending. Proposers and
 * learners do not crash in this harness.
 *
 * <p>With a disk directory, each acceptor's storage is a real {@link FileAcceptorLog} instead: the
 * harness flushes it before putting an acceptor's messages on the network (as the runtime does), a
 * crash closes it and drops the storage object, and a restart reopens it from the file. The log
 * compacts at its smallest size, so compaction runs often.
 */
final class SimulatedCluster {

    final RingPaxosConfig config;
    private final Random random;
    private final TreeMap<Integer, RingPaxosCore> live = new TreeMap<>();
    private final Map<Integer, AcceptorStorage> storages = new HashMap<>();
    private final Path disk;
    private final Map<Integer, FileAcceptorLog> logs = new HashMap<>();
    private final TreeSet<Integer> down = new TreeSet<>();
    /** The network: set its loss, duplication and delays. Crashed nodes are crashed in it too. */
    final SimulatedNetwork<Message> network;

    /** What each learner delivered, in order. */
    final Map<Integer, List<Output.Delivery>> delivered = new TreeMap<>();
    /** Every proposal made, with its payload, in order. */
    final Map<ProposalId, byte[]> proposed = new LinkedHashMap<>();
    /** Proposals acknowledged to their proposer. */
    final Set<ProposalId> acknowledged = new HashSet<>();
    /** What each resumed learner delivered since it was restarted from a checkpoint (not in {@link #delivered}). */
    final Map<Integer, List<Output.Delivery>> resumedDelivered = new TreeMap<>();
    /** Each trimmed-past signal a learner raised, by learner id. */
    final Map<Integer, List<Long>> trimmedPastSignals = new TreeMap<>();
    /** The highest safe instance each learner sent in a report. */
    final Map<Integer, Long> lastReport = new TreeMap<>();
    private final Set<Integer> resumed = new HashSet<>();

    /**
     * A deliberately broken mode for testing the checker: a restarted acceptor loses its storage
     * too (promises and votes forgotten), which Paxos does not tolerate.
     */
    boolean amnesia;
    long now;

    SimulatedCluster(RingPaxosConfig config, Random random) {
        this(config, random, null);
    }

    /** A cluster whose acceptors keep their storage in {@code FileAcceptorLog}s under {@code disk} (null: in memory). */
    SimulatedCluster(RingPaxosConfig config, Random random, Path disk) {
        this.config = config;
        this.random = random;
        this.disk = disk;
        this.network = new SimulatedNetwork<>(random, Message::from, Message::to);
        for (int a : config.acceptors()) {
            storages.put(a, disk == null ? new AcceptorStorage(config.logCapacity()) : openLog(a));
            live.put(a, new AcceptorNode(config, a, storages.get(a)));
        }
        for (int l : config.learners()) {
            live.put(l, new Learner(config, l));
            delivered.put(l, new ArrayList<>());
        }
        for (int p : config.proposers()) {
            live.put(p, new Proposer(config, p));
        }
    }

    /** One tick: deliver every message due, then tick every live node. */
    void tick() {
        now++;
        for (Message m : network.due(now)) {
            RingPaxosCore node = live.get(m.to()); // due to a crashed node: lost
            node.step(m);
            collect(node);
        }
        for (RingPaxosCore node : List.copyOf(live.values())) {
            node.tick();
            collect(node);
        }
    }

    /** Runs {@code ticks} ticks. */
    void run(int ticks) {
        for (int i = 0; i < ticks; i++) {
            tick();
        }
    }

    /** Makes the proposer propose a fresh value if its window allows; returns whether it did. */
    boolean propose(int proposerId) {
        Proposer p = (Proposer) live.get(proposerId);
        if (!p.canPropose()) {
            return false;
        }
        byte[] data = new byte[1 + random.nextInt(8)];
        random.nextBytes(data);
        proposed.put(p.propose(data), data);
        collect(p);
        return true;
    }

    /** Crashes an acceptor: its volatile state is gone, its storage stays. */
    void crash(int acceptor) {
        if (live.remove(acceptor) != null) {
            down.add(acceptor);
            network.crash(acceptor);
            FileAcceptorLog log = logs.remove(acceptor);
            if (log != null) {
                log.close();
                storages.remove(acceptor);
            }
        }
    }

    private AcceptorStorage openLog(int acceptor) {
        try {
            FileAcceptorLog log = FileAcceptorLog.open(disk.resolve("acceptor-" + acceptor), config.logCapacity(), false, 4096);
            logs.put(acceptor, log);
            return log.storage();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes the acceptors' logs, if any. */
    void closeLogs() {
        logs.values().forEach(FileAcceptorLog::close);
        logs.clear();
    }

    /** Replaces a learner (before it ran, or after a crash) by {@code learner}; its later deliveries count as resumed if asked. */
    void putLearner(Learner learner, boolean resumedIncarnation) {
        live.put(learner.id(), learner);
        network.recover(learner.id());
        if (resumedIncarnation) {
            resumed.add(learner.id());
            resumedDelivered.put(learner.id(), new ArrayList<>());
        }
    }

    /** Crashes a learner: it stops, and what it delivered stays in {@link #delivered}. */
    void crashLearner(int learner) {
        live.remove(learner);
        network.crash(learner);
    }

    /** Restarts a crashed acceptor on its durable storage. */
    void restart(int acceptor) {
        if (down.remove(acceptor)) {
            network.recover(acceptor);
            if (amnesia) {
                storages.put(acceptor, new AcceptorStorage(config.logCapacity()));
            } else if (disk != null) {
                storages.put(acceptor, openLog(acceptor));
            }
            live.put(acceptor, new AcceptorNode(config, acceptor, storages.get(acceptor)));
        }
    }

    /** Restarts every crashed acceptor and makes the network lose and duplicate nothing. */
    void heal() {
        for (int a : List.copyOf(down)) {
            restart(a);
        }
        network.heal();
    }

    TreeSet<Integer> down() {
        return down;
    }

    List<Integer> liveAcceptors() {
        return config.acceptors().stream().filter(live::containsKey).toList();
    }

    AcceptorStorage storage(int acceptor) {
        return storages.get(acceptor);
    }

    RingPaxosCore node(int id) {
        return live.get(id);
    }

    /** Whether every proposal is acknowledged and delivered by every learner. */
    boolean allDone() {
        if (acknowledged.size() < proposed.size()) {
            return false;
        }
        for (List<Output.Delivery> d : delivered.values()) {
            if (d.size() < proposed.size()) {
                return false;
            }
        }
        return true;
    }

    private void collect(RingPaxosCore node) {
        Ready<Message, StorageChange, Output> ready = node.ready();
        if (ready.isEmpty()) {
            return;
        }
        FileAcceptorLog log = logs.get(node.id());
        if (log != null) {
            log.append(ready.writes());
            log.flush(); // durable before anything that depends on it leaves
        }
        for (Message m : ready.messages()) {
            transmit(m);
        }
        List<Output.Delivery> deliveries = Output.deliveries(ready.outputs());
        if (!deliveries.isEmpty()) {
            (resumed.contains(node.id()) ? resumedDelivered : delivered).get(node.id()).addAll(deliveries);
        }
        long trimPoint = Output.trimmedPast(ready.outputs());
        if (trimPoint > 0) {
            trimmedPastSignals.computeIfAbsent(node.id(), k -> new ArrayList<>()).add(trimPoint);
        }
        acknowledged.addAll(Output.acknowledged(ready.outputs()));
        node.advance(ready);
    }

    private void transmit(Message m) {
        if (m instanceof Message.Delivered d) {
            lastReport.merge(d.from(), d.upTo(), Math::max);
        }
        network.transmit(m, now);
    }
}
