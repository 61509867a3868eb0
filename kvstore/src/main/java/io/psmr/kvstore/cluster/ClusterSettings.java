package io.psmr.kvstore.cluster;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.kvstore.StoreSizing;
import java.time.Duration;

/**
 * The settings every process of a cluster must agree on, fixed by {@code cluster start} and read
 * from {@code cluster.json} by each node and by each load process: the conflict-detection mode
 * (replicas and proxies must use the same), the replicas' workers, the store's replicated capacity,
 * and the Ring Paxos tick.
 *
 * <p>The capacity is part of the replicated state machine's definition: every replica gets the same
 * {@link StoreCapacity} ({@code maxKeys}, {@code maxBytes}) and refuses the same writes with FULL,
 * decided in delivery order; Chronicle Map is sized above it ({@link StoreSizing#storeConfig}), so
 * the map never fills first.
 *
 * @param mode       the scheduler configuration of replicas and proxies
 * @param workers    worker threads per replica
 * @param maxKeys    the most entries the store may hold (replicated capacity)
 * @param valueBytes the value size the default {@code maxBytes} allows per entry (larger values still
 *                   fit, up to {@link KvLimits}, while the byte capacity has room)
 * @param maxBytes   the most key-plus-value bytes the store may hold (replicated capacity); a
 *                   cluster.json without it (written before it existed) gets
 *                   {@link StoreSizing#defaultMaxBytes}
 * @param tickMillis the Ring Paxos tick; timeouts are counted in ticks
 */
public record ClusterSettings(SchedulerMode mode, int workers, long maxKeys, int valueBytes, long maxBytes, int tickMillis) {

    /** The largest {@code maxKeys}. */
    public static final long MAX_KEYS = 1_000_000_000L;

    /** Checks the fields, naming the bad one. */
    public ClusterSettings {
        if (mode == null) {
            throw new IllegalArgumentException("settings.mode must be one of " + SchedulerMode.cliNames() + ", got nothing");
        }
        if (workers < 1 || workers > 1024) {
            throw new IllegalArgumentException("settings.workers must be from 1 to 1024, got " + workers);
        }
        if (maxKeys < 1 || maxKeys > MAX_KEYS) {
            throw new IllegalArgumentException("settings.maxKeys must be from 1 to 10^9, got " + maxKeys);
        }
        if (valueBytes < 1 || valueBytes > KvLimits.defaults().maxValueBytes()) {
            throw new IllegalArgumentException("settings.valueBytes must be from 1 to " + KvLimits.defaults().maxValueBytes()
                    + ", got " + valueBytes);
        }
        if (maxBytes < 1 || maxBytes > StoreSizing.maxUsefulBytes(maxKeys)) {
            throw new IllegalArgumentException("settings.maxBytes must be from 1 to " + StoreSizing.maxUsefulBytes(maxKeys)
                    + " (maxKeys times the largest key and value), got " + maxBytes);
        }
        if (tickMillis < 1 || tickMillis > 1000) {
            throw new IllegalArgumentException("settings.tickMillis must be from 1 to 1000, got " + tickMillis);
        }
    }

    /** Settings with the default byte capacity, {@link StoreSizing#defaultMaxBytes}{@code (maxKeys, valueBytes)}. */
    public ClusterSettings(SchedulerMode mode, int workers, long maxKeys, int valueBytes, int tickMillis) {
        this(mode, workers, maxKeys, valueBytes, defaultMaxBytes(maxKeys, valueBytes), tickMillis);
    }

    /** Reads the settings of a cluster.json; a missing {@code maxBytes} (an older file) gets the default. */
    @JsonCreator
    static ClusterSettings fromJson(@JsonProperty("mode") SchedulerMode mode, @JsonProperty("workers") int workers,
                                    @JsonProperty("maxKeys") long maxKeys, @JsonProperty("valueBytes") int valueBytes,
                                    @JsonProperty("maxBytes") Long maxBytes, @JsonProperty("tickMillis") int tickMillis) {
        return maxBytes == null
                ? new ClusterSettings(mode, workers, maxKeys, valueBytes, tickMillis)
                : new ClusterSettings(mode, workers, maxKeys, valueBytes, maxBytes, tickMillis);
    }

    // Out of range inputs fall through to the constructor's checks, which name the field.
    private static long defaultMaxBytes(long maxKeys, int valueBytes) {
        return maxKeys < 1 || maxKeys > MAX_KEYS || valueBytes < 1 || valueBytes > KvLimits.defaults().maxValueBytes() ? 1 : StoreSizing.defaultMaxBytes(maxKeys, valueBytes);
    }

    /** The tick as a duration. */
    public Duration tick() {
        return Duration.ofMillis(tickMillis);
    }

    /** The store's replicated capacity: {@code maxKeys} entries and {@code maxBytes} key-plus-value bytes. */
    public StoreCapacity capacity() {
        return new StoreCapacity(maxKeys, maxBytes);
    }

    /** The configuration of replica {@code replicaId}: this mode, workers, capacity and a store sized for it. */
    public ReplicaConfig replicaConfig(int replicaId) {
        StoreCapacity c = capacity();
        return ReplicaConfig.builder().mode(mode)
                .replicaId(replicaId)
                .workers(workers)
                .limits(KvLimits.defaults())
                .capacity(c)
                .store(StoreSizing.storeConfig(c))
                .build();
    }
}
