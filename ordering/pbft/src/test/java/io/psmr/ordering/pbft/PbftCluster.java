package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarOutput.Committed;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.protocol.sim.SimulatedNetwork;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * n replicas × Np pillars over a {@link SimulatedNetwork} of envelopes, each replica with a minimal execution stage:
 * it executes committed instances in global sequence order (skipping requests already executed),
 * chains a state digest, reports it at checkpoints to the checkpoint's pillar, announces stable
 * checkpoints to every pillar, asks pillars for EMPTY instances where the order has a gap, and
 * "transfers state" (adopts the agreed digest) when a stable checkpoint passes it by.
 *
 * <p>It records every violation of agreement it sees in {@link #violations}.
 */
class PbftCluster {

    /** One replica: its pillars and its execution stage. */
    final class Replica {
        final int id;
        final PbftPillar[] pillars;
        final TreeMap<Long, Committed> committed = new TreeMap<>();
        final Set<RequestId> executedRequests = new HashSet<>();
        /** The requests this replica executed, in execution order (duplicates skipped). */
        final List<RequestId> executionLog = new ArrayList<>();
        /** Requests ordered again (by a Byzantine leader or two pillars) and skipped at execution. */
        long duplicatesSkipped;
        long executedUpTo;
        byte[] state = new byte[32];
        int stateTransfers;
        /** The highest stable checkpoint this replica learned (what a state transfer from it would give). */
        StableCheckpoint lastStable;

        Replica(int id) {
            this.id = id;
            pillars = new PbftPillar[config.pillars()];
            for (int p = 0; p < pillars.length; p++) {
                pillars[p] = new PbftPillar(config, id, p, auth);
            }
        }

        void onCommitted(Committed c) {
            if (committed.containsKey(c.seq()) || c.seq() <= executedUpTo) {
                if (committed.containsKey(c.seq()) && !Arrays.equals(committed.get(c.seq()).digest(), c.digest())) {
                    violations.add("replica " + id + " committed seq " + c.seq() + " twice, differently");
                }
                return;
            }
            committed.put(c.seq(), c);
            if (byzantine.contains(id)) {
                return; // a Byzantine replica's commits prove nothing
            }
            byte[] agreed = decided.putIfAbsent(c.seq(), c.digest());
            if (agreed != null && !Arrays.equals(agreed, c.digest())) {
                violations.add("agreement: seq " + c.seq() + " committed as " + hex(agreed) + " and as " + hex(c.digest())
                        + " (replica " + id + ")");
            }
            if (c.request() != null) {
                orderedAt.putIfAbsent(c.request().id(), c.seq());
            }
        }

        void execute() {
            while (committed.containsKey(executedUpTo + 1)) {
                Committed c = committed.remove(executedUpTo + 1);
                executedUpTo++;
                if (c.request() != null) {
                    // The execution stage skips a request ordered twice; deterministic, as the order is total.
                    if (executedRequests.add(c.request().id())) {
                        executionLog.add(c.request().id());
                        if (!byzantine.contains(id)) {
                            checkValidity(id, c.request());
                        }
                    } else {
                        duplicatesSkipped++;
                    }
                }
                // The state chains every executed instance, so it depends on the order only.
                state = PbftDigests.sha256(ByteBuffer.allocate(8 + 32 + 32).putLong(executedUpTo).put(state).put(c.digest()).array());
                if (config.isCheckpoint(executedUpTo)) {
                    pillars[config.checkpointPillar(executedUpTo)].checkpointDigest(executedUpTo, state);
                }
            }
            if (!committed.isEmpty()) {
                // A gap: every pillar must fill its instances below the highest committed one.
                long top = committed.lastKey();
                for (int p = 0; p < pillars.length; p++) {
                    long s = top - Math.floorMod(top - p, config.pillars());
                    if (s > executedUpTo && s >= 1) {
                        pillars[p].needEmpty(s);
                    }
                }
            }
        }

        void onStable(StableCheckpoint cp) {
            if (lastStable == null || cp.seq() > lastStable.seq()) {
                lastStable = cp;
            }
            for (PbftPillar p : pillars) {
                p.stableCheckpoint(cp);
            }
            if (cp.seq() > executedUpTo) {
                // State transfer is out of scope: adopt the agreed state, as a transfer would.
                stateTransfers++;
                // The transferred state carries each client's last executed request (PBFT's reply table);
                // the stand-in takes it from where the correct replicas ordered each request.
                for (Map.Entry<RequestId, Long> o : orderedAt.entrySet()) {
                    if (o.getValue() > executedUpTo && o.getValue() <= cp.seq() && executedRequests.add(o.getKey())) {
                        for (PbftPillar p : pillars) {
                            p.clientExecuted(o.getKey().client(), o.getKey().number());
                        }
                    }
                }
                executedUpTo = cp.seq();
                state = cp.stateDigest();
                committed.headMap(cp.seq(), true).clear();
            }
        }
    }

    final PbftConfig config;
    final Authenticator auth;
    final SimulatedNetwork<PbftEnvelope> network;
    final Replica[] replicas;
    final List<String> violations = new ArrayList<>();
    /** Replicas that are Byzantine: neither their commits nor their progress are checked. */
    final Set<Integer> byzantine = new HashSet<>();
    /** The digest committed at each seq by the first correct replica. */
    final Map<Long, byte[]> decided = new HashMap<>();
    /**
     * Replicas restarted with amnesia: each may have sent PREPAREs, COMMITs, VIEW-CHANGEs it no longer
     * remembers, so it is the run's one faulty replica from its restart on (its commits and its
     * progress are still checked). Refusals of envelopes it sent are counted in {@link #excused}.
     */
    final Set<Integer> amnesiac = new TreeSet<>();
    /** Refusals of envelopes sent by an amnesiac replica (after its restart); not "among correct replicas". */
    final EnumMap<Refusal, Long> excused = new EnumMap<>(Refusal.class);
    /** Refusals counted by pillars that an amnesiac restart replaced. */
    private final EnumMap<Refusal, Long> retired = new EnumMap<>(Refusal.class);
    /**
     * Per amnesiac replica, its recovery point: the highest high watermark of the live correct replicas
     * when it restarted. Every instance it may have pre-prepared, prepared or committed and forgotten
     * lies at or below it; it has recovered once it executed through it.
     */
    final Map<Integer, Long> recoveryPoint = new TreeMap<>();
    int recoveries;
    int amnesiacRestarts;
    /** Where each request was (first) ordered. */
    final Map<RequestId, Long> orderedAt = new HashMap<>();
    /** Every request submitted, in order. */
    final Map<RequestId, Request> submitted = new LinkedHashMap<>();
    long now;

    /** A network of envelopes drawing from {@code random} (lossless until told otherwise). */
    static SimulatedNetwork<PbftEnvelope> network(Random random) {
        return new SimulatedNetwork<>(random, PbftEnvelope::from, PbftEnvelope::to);
    }

    PbftCluster(PbftConfig config, Authenticator auth, SimulatedNetwork<PbftEnvelope> network) {
        this.config = config;
        this.auth = auth;
        this.network = network;
        replicas = new Replica[config.replicaCount()];
        for (int r = 0; r < replicas.length; r++) {
            replicas[r] = new Replica(r);
        }
    }

    /** The pillar a client's requests go to. */
    int pillarOf(long client) {
        return (int) (client % config.pillars());
    }

    /** A client submits {@code request} at replica {@code at} (through the pillar of the client). */
    boolean submit(Request request, int at) {
        submitted.putIfAbsent(request.id(), request);
        if (network.isCrashed(at)) {
            return false;
        }
        boolean accepted = replicas[at].pillars[pillarOf(request.client())].propose(request).isEmpty();
        drain(replicas[at]);
        return accepted;
    }

    /** Delivers the envelopes due, then ticks every live pillar and runs the execution stages. */
    void tick() {
        now++;
        network.tick(now);
        for (PbftEnvelope e : network.due(now)) {
            Replica r = replicas[e.to()];
            if (e.pillar() >= 0 && e.pillar() < config.pillars()) {
                PbftPillar p = r.pillars[e.pillar()];
                if (amnesiac.contains(e.from())) {
                    // Attribute what this envelope makes the receiver refuse to its faulty sender.
                    Map<Refusal, Long> before = p.refusals();
                    p.step(e);
                    p.refusals().forEach((reason, count) -> {
                        long added = count - before.getOrDefault(reason, 0L);
                        if (added > 0) {
                            excused.merge(reason, added, Long::sum);
                        }
                    });
                } else {
                    p.step(e);
                }
            }
            drain(r);
        }
        for (Replica r : replicas) {
            if (network.isCrashed(r.id)) {
                continue;
            }
            for (PbftPillar p : r.pillars) {
                p.tick();
            }
            drain(r);
        }
    }

    /** Crashes replica {@code id}: it stops, and what was in flight to it is lost. */
    void crash(int id) {
        network.crash(id);
        network.dropInFlightTo(id);
    }

    /**
     * Replica {@code id} comes back with its state kept (a paused process, or one whose state survived
     * on disk): its pillars and execution stage resume where they stopped; only its in-flight messages
     * were lost. It catches up by the protocol's retransmissions, relays and checkpoints.
     */
    void recover(int id) {
        if (!network.recover(id)) {
            throw new IllegalStateException("replica " + id + " is not crashed");
        }
        recoveries++;
    }

    /**
     * Replica {@code id} comes back with amnesia: fresh pillars (view 0, no log) and a fresh execution
     * stage. The state-transfer stand-in gives it the highest stable checkpoint of a live correct
     * replica and that checkpoint's state (as {@link Replica#onStable} does for a lagging replica); the
     * rest it learns from retransmissions, relays, later checkpoints and the view-change messages.
     */
    void restartWithAmnesia(int id) {
        if (!network.recover(id)) {
            throw new IllegalStateException("replica " + id + " is not crashed");
        }
        for (PbftPillar p : replicas[id].pillars) {
            p.refusals().forEach((reason, count) -> retired.merge(reason, count, Long::sum));
        }
        amnesiac.add(id);
        amnesiacRestarts++;
        Replica fresh = new Replica(id);
        replicas[id] = fresh;
        StableCheckpoint donor = null;
        long high = 0;
        for (Replica r : live()) {
            if (r.id != id && !amnesiac.contains(r.id)) {
                for (PbftPillar p : r.pillars) {
                    high = Math.max(high, p.lowWatermark() + config.watermarkWindow());
                }
            }
            if (r.id != id && !amnesiac.contains(r.id) && r.lastStable != null
                    && (donor == null || r.lastStable.seq() > donor.seq())) {
                donor = r.lastStable;
            }
        }
        recoveryPoint.merge(id, high, Math::max);
        for (PbftPillar p : fresh.pillars) {
            p.recovering(high); // it may have led instances up to the others' high watermark before
        }
        if (donor != null) {
            fresh.onStable(donor);
        }
        drain(fresh);
    }

    /**
     * A live amnesiac replica that has not yet executed through its recovery point, or -1. While one
     * exists, the simulation orders recovery requests for it (see {@code PbftSimulationTest}).
     */
    int recovering() {
        for (Map.Entry<Integer, Long> e : recoveryPoint.entrySet()) {
            Replica r = replicas[e.getKey()];
            if (!network.isCrashed(r.id) && r.executedUpTo < e.getValue()) {
                return r.id;
            }
        }
        return -1;
    }

    /** Collects every pillar's outputs until none is left (execution may produce more). */
    void drain(Replica r) {
        boolean more = true;
        while (more) {
            more = false;
            for (PbftPillar p : r.pillars) {
                Ready<PbftEnvelope, Void, PillarOutput> ready = p.ready();
                if (ready.isEmpty()) {
                    continue;
                }
                more = true;
                for (PbftEnvelope e : ready.messages()) {
                    network.transmit(e, now);
                }
                p.advance(ready);
                // Commits first, then stable checkpoints, as the pillar agent hands them on.
                for (PillarOutput o : ready.outputs()) {
                    if (o instanceof Committed c) {
                        r.onCommitted(c);
                    }
                }
                for (PillarOutput o : ready.outputs()) {
                    if (o instanceof StableCheckpoint cp) {
                        r.onStable(cp);
                    }
                }
            }
            r.execute();
        }
    }

    /** Live correct replicas (neither crashed nor Byzantine). */
    List<Replica> live() {
        return Arrays.stream(replicas).filter(r -> !network.isCrashed(r.id) && !byzantine.contains(r.id)).toList();
    }

    /** Validity: a correct replica executes only requests a client submitted, exactly as submitted. */
    private void checkValidity(int replica, Request r) {
        Request sent = submitted.get(r.id());
        if (sent == null || !sent.equals(r)) {
            violations.add("validity: replica " + replica + " executed " + r + (sent == null ? ", never submitted" : ", not as submitted"));
        }
    }

    /** Whether every submitted request is ordered and every live replica executed through it. */
    boolean allDone() {
        long top = 0;
        for (RequestId id : submitted.keySet()) {
            Long at = orderedAt.get(id);
            if (at == null) {
                return false;
            }
            top = Math.max(top, at);
        }
        for (Replica r : live()) {
            if (r.executedUpTo < top) {
                return false;
            }
        }
        return true;
    }

    /** Refusals of {@code reason} not caused by an amnesiac replica's envelopes. */
    long refusalsAmongCorrect(Refusal reason) {
        return refusals(reason) - excused.getOrDefault(reason, 0L);
    }

    /** Total refusals of {@code reason} over every pillar, replaced ones included. */
    long refusals(Refusal reason) {
        long sum = retired.getOrDefault(reason, 0L);
        for (Replica r : replicas) {
            for (PbftPillar p : r.pillars) {
                sum += p.refusals(reason);
            }
        }
        return sum;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b, 0, Math.min(6, b.length));
    }
}
