package io.psmr.kvstore;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Objects;

/**
 * Decides, in delivery order, which writes the store has room for, so that every replica refuses
 * the same commands with {@link KvStatus#FULL} although its workers execute in parallel.
 *
 * <p><b>The rule.</b> The guard keeps a <i>base</i>: the store's exact entry and byte counts at the
 * last <i>sync</i>, a point where every batch delivered before the current one has executed (so the
 * counts equal those of sequential execution, on every replica). On top of the base it
 * <i>reserves</i> each admitted command's largest possible growth: a CREATE one entry and its key
 * and value bytes, an UPDATE its value bytes, a MULTI_PUT one entry and the key and value bytes of
 * each pair; READ and DELETE nothing (a DELETE's room comes back at the next sync). A command
 * whose growth fits under the capacity on top of base and reservations is admitted. One that does
 * not fit makes the guard sync — quiesce the scheduler, read the exact counts, and keep as reserved
 * only the current batch's own admitted commands, which have not run yet — and then decide again;
 * if it still does not fit, it is refused. A sync is skipped when no write was admitted in an
 * earlier batch since the last one, because the exact counts cannot have changed.
 *
 * <p>Every step depends only on the delivered sequence and on exact counts at points the sequence
 * fixes, so the verdicts are the same on every replica, whatever the timing. Far from full, the
 * guard never syncs; near full, it syncs at most once per batch.
 *
 * <p><b>Checkpoints.</b> The guard's own state (base, reservations, whether the counts may have
 * changed) is part of a replica's checkpoint ({@link #writeTo}, {@link #readFrom}): a replica that
 * resumes from instance n must decide the instances after n exactly as one that ran through them,
 * and a guard re-counted at n would sync at other instances than theirs.
 *
 * <p><b>Threads.</b> Delivery thread only (or Ratis' updater thread), like the rest of admission.
 */
public final class CapacityGuard {

    /** Makes the scheduler quiescent, so that the store's counts are exact. */
    @FunctionalInterface
    public interface Quiescer {
        /** Waits until every batch handed to the scheduler has executed. */
        void quiesce() throws InterruptedException;
    }

    private final StoreCapacity capacity;
    private final KvService service;
    private final Quiescer quiescer;

    private long baseEntries;
    private long baseBytes;
    private long reservedEntries;
    private long reservedBytes;
    private long batchEntries;
    private long batchBytes;
    private boolean batchWrote;
    private boolean stale = true;
    private long syncs;

    /** A guard of {@code service}'s store, which reads its counts after {@code quiescer} returns. */
    CapacityGuard(StoreCapacity capacity, KvService service, Quiescer quiescer) {
        this.capacity = Objects.requireNonNull(capacity, "capacity");
        this.service = Objects.requireNonNull(service, "service");
        this.quiescer = Objects.requireNonNull(quiescer, "quiescer");
    }

    /** Starts a new batch: writes admitted in the previous one may have run by the next sync. */
    void beginBatch() {
        if (batchWrote) {
            stale = true;
        }
        batchWrote = false;
        batchEntries = 0;
        batchBytes = 0;
    }

    /**
     * Admits {@code c} (reserving its growth) or refuses it.
     *
     * @return null if admitted, else the FULL detail naming the capacity and the need
     */
    String admit(KvCommand c) throws InterruptedException {
        long entries = 0;
        long bytes = 0;
        switch (c.op()) {
            case CREATE -> {
                entries = 1;
                bytes = c.key().length + c.value().length;
            }
            case UPDATE -> bytes = c.value().length;
            case MULTI_PUT -> {
                entries = c.keyCount();
                for (int i = 0; i < c.keyCount(); i++) {
                    bytes += c.key(i).length + c.value(i).length;
                }
            }
            case DELETE -> {
                batchWrote = true;
                return null;
            }
            default -> {
                return null;
            }
        }
        if (!fits(entries, bytes) && stale) {
            sync();
        }
        if (!fits(entries, bytes)) {
            return "store full: " + (baseEntries + reservedEntries) + " entries and " + (baseBytes + reservedBytes)
                    + " key and value bytes are held or reserved by earlier writes, the capacity is "
                    + capacity.maxEntries() + " entries and " + capacity.maxBytes() + " bytes, and this " + c.op()
                    + " may add " + entries + " entries and " + bytes + " bytes";
        }
        reservedEntries += entries;
        reservedBytes += bytes;
        batchEntries += entries;
        batchBytes += bytes;
        batchWrote = true;
        return null;
    }

    /** How many times the guard quiesced the scheduler to read exact counts. */
    long syncs() {
        return syncs;
    }

    /** Writes the guard's state for a checkpoint; between batches, on the delivery thread. */
    public void writeTo(DataOutput out) throws IOException {
        out.writeLong(baseEntries);
        out.writeLong(baseBytes);
        out.writeLong(reservedEntries);
        out.writeLong(reservedBytes);
        out.writeLong(batchEntries);
        out.writeLong(batchBytes);
        out.writeBoolean(batchWrote);
        out.writeBoolean(stale);
    }

    /** Replaces the guard's state with one {@link #writeTo} wrote. @throws IOException if it is malformed */
    public void readFrom(DataInput in) throws IOException {
        long[] v = new long[6];
        for (int i = 0; i < v.length; i++) {
            v[i] = in.readLong();
            if (v[i] < 0) {
                throw new IOException("the checkpoint's capacity state holds a negative count: " + v[i]);
            }
        }
        baseEntries = v[0];
        baseBytes = v[1];
        reservedEntries = v[2];
        reservedBytes = v[3];
        batchEntries = v[4];
        batchBytes = v[5];
        batchWrote = in.readBoolean();
        stale = in.readBoolean();
    }

    private boolean fits(long entries, long bytes) {
        return baseEntries + reservedEntries + entries <= capacity.maxEntries()
                && baseBytes + reservedBytes + bytes <= capacity.maxBytes();
    }

    private void sync() throws InterruptedException {
        quiescer.quiesce();
        baseEntries = service.store().size();
        baseBytes = service.usedBytes();
        reservedEntries = batchEntries;
        reservedBytes = batchBytes;
        stale = false;
        syncs++;
    }
}
