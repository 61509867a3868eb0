package io.psmr.kvstore.pbft;

import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftConfig;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.psmr.ordering.pbft.LeaderSelection;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The PBFT part of a {@code cluster.json} ({@code "pbft"}; absent for the other orderings): what every replica must
 * agree on, and where each replica's pillars listen. The replicas' keys lie in {@code DIR/keys}
 * ({@code PbftKeyFiles}), written by {@code cluster start}.
 *
 * @param f           faults tolerated; the cluster has {@code 3f + 1} replicas
 * @param pillars     Np, COP pillars per replica
 * @param rotation    leaders: {@code ROTATING} (COP's block-wise rotation) or {@code FIXED}
 * @param pillarPorts per replica (index = PBFT replica id = store replica id − 1), one port per pillar
 * @param checkpointInterval delivered instances between the store's checkpoints, which are the PBFT checkpoints
 *                    (absent or 0 in a cluster.json: {@link #DEFAULT_CHECKPOINT_INTERVAL})
 * @param byzantine   <b>testing only</b>: replicas that are Byzantine on purpose, by node name ({@code replica-N}), with
 *                    their mode ({@code --byzantine replica-N=MODE}); at most f of them; empty (and left out of the
 *                    file) for a correct cluster
 * @param leaderSelection which replicas may lead: {@code BLACKLIST} (suspected leaders kept out for a backoff) or
 *                    {@code ALL_REPLICAS}; absent in a cluster.json: {@code BLACKLIST}
 * @param dormant     <b>testing only</b>: those of {@code byzantine} that run as correct replicas until cued
 *                    ({@code ClusterLauncher#cueByzantine}), so that a fault benchmark turns a warm replica Byzantine at
 *                    one moment; empty (and left out of the file) otherwise
 */
public record PbftClusterSettings(int f, int pillars, LeaderRotation rotation, List<List<Integer>> pillarPorts,
                                  int checkpointInterval,
                                  @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, ByzantineMode> byzantine,
                                  LeaderSelection leaderSelection,
                                  @JsonInclude(JsonInclude.Include.NON_EMPTY) Set<String> dormant) {

    /** Delivered instances between checkpoints by default (as a Ring Paxos replica's). */
    public static final int DEFAULT_CHECKPOINT_INTERVAL = 512;

    /** With no dormant Byzantine replica. */
    public PbftClusterSettings(int f, int pillars, LeaderRotation rotation, List<List<Integer>> pillarPorts,
                               int checkpointInterval, Map<String, ByzantineMode> byzantine,
                               LeaderSelection leaderSelection) {
        this(f, pillars, rotation, pillarPorts, checkpointInterval, byzantine, leaderSelection, Set.of());
    }

    /** With the blacklist leader selection. */
    public PbftClusterSettings(int f, int pillars, LeaderRotation rotation, List<List<Integer>> pillarPorts,
                               int checkpointInterval, Map<String, ByzantineMode> byzantine) {
        this(f, pillars, rotation, pillarPorts, checkpointInterval, byzantine, LeaderSelection.BLACKLIST);
    }

    /** A cluster of correct replicas only, with the default checkpoint interval. */
    public PbftClusterSettings(int f, int pillars, LeaderRotation rotation, List<List<Integer>> pillarPorts) {
        this(f, pillars, rotation, pillarPorts, DEFAULT_CHECKPOINT_INTERVAL, Map.of());
    }

    /** A cluster of correct replicas only. */
    public PbftClusterSettings(int f, int pillars, LeaderRotation rotation, List<List<Integer>> pillarPorts,
                               int checkpointInterval) {
        this(f, pillars, rotation, pillarPorts, checkpointInterval, Map.of());
    }

    /** With the default checkpoint interval. */
    public PbftClusterSettings(int f, int pillars, LeaderRotation rotation, List<List<Integer>> pillarPorts,
                               Map<String, ByzantineMode> byzantine) {
        this(f, pillars, rotation, pillarPorts, DEFAULT_CHECKPOINT_INTERVAL, byzantine);
    }

    /** Checks the fields, naming the bad one. */
    @com.fasterxml.jackson.annotation.JsonCreator
    public PbftClusterSettings {
        if (checkpointInterval == 0) {
            checkpointInterval = DEFAULT_CHECKPOINT_INTERVAL;
        }
        if (checkpointInterval < 1 || checkpointInterval > 1 << 20) {
            throw new IllegalArgumentException("pbft.checkpointInterval must be from 1 to " + (1 << 20) + ", got "
                    + checkpointInterval);
        }
        byzantine = byzantine == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(byzantine));
        leaderSelection = leaderSelection == null ? LeaderSelection.BLACKLIST : leaderSelection; // absent in older files
        dormant = dormant == null ? Set.of() : Collections.unmodifiableSet(new TreeSet<>(dormant));
        for (String d : dormant) {
            if (!byzantine.containsKey(d)) {
                throw new IllegalArgumentException("pbft.dormant names " + d + ", which is not Byzantine (pbft.byzantine: "
                        + byzantine.keySet() + ")");
            }
        }
        if (byzantine.size() > f) {
            throw new IllegalArgumentException("pbft.byzantine names " + byzantine.size() + " replicas; f = " + f
                    + " tolerates at most " + f);
        }
        for (Map.Entry<String, ByzantineMode> e : byzantine.entrySet()) {
            Objects.requireNonNull(e.getValue(), "pbft.byzantine: the mode of " + e.getKey());
            if (!e.getKey().matches("replica-[1-9][0-9]*") || Integer.parseInt(e.getKey().substring(8)) > 3 * f + 1) {
                throw new IllegalArgumentException("pbft.byzantine: no replica '" + e.getKey() + "' (replica-1 to replica-"
                        + (3 * f + 1) + ")");
            }
        }
        Objects.requireNonNull(rotation, "pbft.rotation");
        if (f < 1 || f > 21) {
            throw new IllegalArgumentException("pbft.f must be from 1 to 21, got " + f);
        }
        if (pillars < 1 || pillars > 64) {
            throw new IllegalArgumentException("pbft.pillars must be from 1 to 64, got " + pillars);
        }
        pillarPorts = List.copyOf(Objects.requireNonNull(pillarPorts, "pbft.pillarPorts").stream().map(List::copyOf).toList());
        if (pillarPorts.size() != 3 * f + 1) {
            throw new IllegalArgumentException("pbft.pillarPorts has " + pillarPorts.size() + " replicas, f = " + f
                    + " needs " + (3 * f + 1));
        }
        for (List<Integer> ports : pillarPorts) {
            if (ports.size() != pillars) {
                throw new IllegalArgumentException("pbft.pillarPorts: a replica has " + ports.size() + " ports for "
                        + pillars + " pillars");
            }
            for (int p : ports) {
                if (p < 1 || p > 65535) {
                    throw new IllegalArgumentException("pbft.pillarPorts: port must be 1..65535, got " + p);
                }
            }
        }
    }

    /** Testing only: the Byzantine mode of node {@code name}, if it is Byzantine on purpose. */
    public java.util.Optional<ByzantineMode> byzantineMode(String name) {
        return java.util.Optional.ofNullable(byzantine.get(name));
    }

    /**
     * Testing only: these settings with replica {@code name} Byzantine in {@code mode}, or correct again if
     * {@code mode} is empty. The bound of f Byzantine replicas is checked as at a start.
     *
     * @throws IllegalArgumentException if it would name more than f replicas, or no such replica
     */
    public PbftClusterSettings withByzantine(String name, java.util.Optional<ByzantineMode> mode) {
        Map<String, ByzantineMode> changed = new TreeMap<>(byzantine);
        if (mode.isPresent()) {
            changed.put(name, mode.get());
        } else {
            changed.remove(name);
        }
        Set<String> stillDormant = new TreeSet<>(dormant);
        stillDormant.remove(name);
        return new PbftClusterSettings(f, pillars, rotation, pillarPorts, checkpointInterval, changed, leaderSelection,
                stillDormant);
    }

    /** Testing only: whether node {@code name} is Byzantine but waits for its cue ({@link #dormant}). */
    public boolean isDormant(String name) {
        return dormant.contains(name);
    }

    /** Testing only: these settings with Byzantine replica {@code name} no longer dormant. */
    public PbftClusterSettings awake(String name) {
        Set<String> stillDormant = new TreeSet<>(dormant);
        stillDormant.remove(name);
        return new PbftClusterSettings(f, pillars, rotation, pillarPorts, checkpointInterval, byzantine, leaderSelection,
                stillDormant);
    }

    /** n = 3f + 1. */
    public int replicas() {
        return 3 * f + 1;
    }

    /**
     * The protocol configuration every replica runs: {@link EmbeddedPbftCluster#config}, with a checkpoint possible at every
     * sequence number (the store's checkpoint at instance n is certified at the sequence number that delivered n) and
     * a watermark window of at least {@code 2 · checkpointInterval · pillars} (docs/pbft.md, state transfer).
     */
    public PbftConfig config() {
        PbftConfig d = EmbeddedPbftCluster.config(f, pillars, rotation);
        return new PbftConfig(d.f(), d.pillars(), 1, Math.max(d.watermarkWindow(), 2L * checkpointInterval * pillars),
                d.requestTimeoutTicks(), d.maxViewChangeTimeoutTicks(), d.emptyInstanceDelayTicks(), d.retransmitTicks(),
                d.leaderRotation(), d.maxRequestBytes(), d.maxPendingRequests(), leaderSelection,
                d.proposeTimeoutTicks(), d.leaderBackoffInstances());
    }
}
