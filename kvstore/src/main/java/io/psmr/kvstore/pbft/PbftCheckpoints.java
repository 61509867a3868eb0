package io.psmr.kvstore.pbft;

import io.psmr.kvstore.Checkpointing;
import io.psmr.kvstore.ReplicaCheckpointState;
import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.ordering.pbft.ApplicationCheckpoints;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.pbft.PbftResumeState;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's checkpoints as PBFT checkpoints (docs/pbft.md, state transfer): the bridge between a PBFT replica's
 * execution agent ({@link ApplicationCheckpoints}) and its store replica's checkpoints ({@link Checkpointing.Hook}).
 * The agent hands over the PBFT resume state at each checkpoint instance; the store's checkpoint puts it into
 * {@code state.bin} ({@link #orderingState}); once the checkpoint is durable ({@link #checkpointed}) this computes
 * D = SHA-256(store digest ‖ state.bin) and gives the agent (s(n), D) to certify.
 *
 * <p>Concurrency: {@link ApplicationCheckpoints} methods on the execution agent's thread, {@link #orderingState} on
 * the store's delivery thread, {@link #checkpointed} on the snapshot writer's thread; the maps between them are
 * concurrent and bounded (the agent runs at most the broadcast's retained instances ahead of the store).
 */
public final class PbftCheckpoints implements ApplicationCheckpoints, Checkpointing.Hook {

    private static final Logger LOG = LoggerFactory.getLogger(PbftCheckpoints.class);

    /**
     * A checkpoint's PBFT certification: where it is certified and with which digest.
     *
     * @param instance the delivered instance n
     * @param seq      s(n), the PBFT sequence number that delivered n
     * @param digest   D = SHA-256(store digest ‖ state.bin)
     */
    public record Certification(long instance, long seq, byte[] digest) {
    }

    private final long interval;
    private final int maxPending;
    private final CheckpointStore store;
    private final Consumer<StableCheckpoint> transfers;
    private final ConcurrentSkipListMap<Long, PbftResumeState> states = new ConcurrentSkipListMap<>();
    private final ArrayBlockingQueue<Durable> durable;

    /**
     * @param interval   delivered instances between checkpoints (the store's {@link Checkpointing#interval()})
     * @param maxPending checkpoint instances the agent may be ahead of the store by, at least 1
     * @param store      where the store's checkpoints are written
     * @param transfers  told when state transfer is needed, on the execution agent's thread: must not block
     */
    public PbftCheckpoints(long interval, int maxPending, CheckpointStore store, Consumer<StableCheckpoint> transfers) {
        if (interval < 1 || maxPending < 1) {
            throw new IllegalArgumentException("interval and maxPending must be at least 1, got " + interval + " and "
                    + maxPending);
        }
        this.interval = interval;
        this.maxPending = maxPending;
        this.store = Objects.requireNonNull(store, "store");
        this.transfers = Objects.requireNonNull(transfers, "transfers");
        this.durable = new ArrayBlockingQueue<>(maxPending);
    }

    /**
     * What a checkpoint's files say it certifies: its PBFT sequence number (from the resume state in
     * {@code state.bin}) and D. The same on every correct replica for the same checkpoint.
     *
     * @throws IOException if the state cannot be read or holds no PBFT resume state
     */
    public static Certification certification(Checkpoint c) throws IOException {
        byte[] state = c.readState();
        ReplicaCheckpointState rs = ReplicaCheckpointState.fromBytes(state);
        PbftResumeState resume = PbftResumeState.fromBytes(rs.orderingState());
        if (resume.nextInstance() != c.instance() + 1) {
            throw new IOException("checkpoint " + c.instance() + " holds the PBFT resume state of instance "
                    + (resume.nextInstance() - 1));
        }
        return new Certification(c.instance(), resume.seq(), ApplicationCheckpoints.digest(c.storeDigest(), state));
    }

    @Override
    public long interval() {
        return interval;
    }

    @Override
    public void resumeState(long instance, PbftResumeState state) {
        if (states.size() >= maxPending) {
            throw new IllegalStateException("the PBFT execution stage is " + states.size() + " checkpoints ahead of the"
                    + " store replica, more than the bound of " + maxPending);
        }
        states.put(instance, state);
    }

    @Override
    public Durable pollDurable() {
        return durable.poll();
    }

    @Override
    public void transferNeeded(StableCheckpoint stable) {
        transfers.accept(stable);
    }

    @Override
    public byte[] orderingState(long instance) {
        states.headMap(instance).clear(); // older ones were never asked for: not needed any more
        PbftResumeState s = states.remove(instance);
        if (s == null) {
            throw new IllegalStateException("no PBFT resume state was recorded for checkpoint instance " + instance);
        }
        return s.toBytes();
    }

    @Override
    public void checkpointed(long instance) {
        try {
            Certification c = certification(store.open(instance));
            if (!durable.offer(new Durable(c.seq(), c.digest()))) {
                LOG.warn("checkpoint {} is not certified: {} durable checkpoints wait for the execution agent", instance,
                        durable.size());
            }
        } catch (IOException | RuntimeException e) {
            // This replica's vote is then missing for it; 2f+1 others suffice, and the next checkpoint tries again.
            LOG.warn("checkpoint {} cannot be certified: {}", instance, e.toString());
        }
    }
}
