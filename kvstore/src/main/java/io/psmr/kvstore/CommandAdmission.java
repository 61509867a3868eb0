package io.psmr.kvstore;

import io.psmr.scheduler.SummaryVerifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a replica decides about a delivered value before anything executes, shared by every
 * ordering ({@link Replica} for psmr's own broadcasts, {@link RatisReplica} behind Ratis):
 * decode → verify the summary → per command: limits, sessions, duplicates, capacity.
 *
 * <ol>
 *   <li><b>Decode</b> with {@link KvCodec#decodeBatch}. A value that is not a valid batch is refused
 *       as a whole with MALFORMED, TOO_LARGE or REJECTED, addressed to the proxy named in its header
 *       if that could be read.</li>
 *   <li><b>Verify</b> that a bitmap summary covers every key ({@link SummaryVerifier}); one that misses
 *       a key is refused whole with REJECTED naming it. (Exact-key summaries are rebuilt from the
 *       commands and need no check.)</li>
 *   <li><b>Admit</b> each command: over a per-command limit → TOO_LARGE; OPEN_SESSION → OK with the
 *       new session's id; otherwise the {@link SessionTable} makes it new, a duplicate, too old
 *       (REJECTED) or sessionless (SESSION_EXPIRED); a new write the store has no room for →
 *       FULL ({@link CapacityGuard}). Everything else executes.</li>
 * </ol>
 * Every verdict depends only on delivered data and the replicated configuration, so every replica
 * decides alike.
 *
 * <p><b>Threads.</b> One thread, in delivery order: the broadcast's delivery thread or Ratis'
 * updater thread. The capacity check may wait there for the scheduler to become quiescent.
 */
final class CommandAdmission {

    /** The outcome for one delivered value: a batch to schedule, or a refusal of the whole value. */
    sealed interface Verdict permits Admitted, Refused {
    }

    /** Schedule these commands, under the decoded batch's summary. */
    record Admitted(KvBatch batch, List<AdmittedCommand> commands) implements Verdict {
    }

    /**
     * The whole value is refused; nothing runs.
     *
     * @param addressed whether the proxy and batch ids could be read, so the refusal can be answered
     */
    record Refused(boolean addressed, long proxyId, long batchId, KvStatus status, String reason) implements Verdict {
        /** The detail of the answer, naming the batch, its proxy and the instance. */
        String detail(long instance) {
            return "batch " + batchId + " of proxy " + proxyId + " at instance " + instance + " refused: " + reason;
        }
    }

    private final ReplicaConfig config;
    private final SessionTable sessions;
    private final CapacityGuard capacity;

    final LongAdder batchesRefused = new LongAdder();
    final LongAdder refusalsUnaddressed = new LongAdder();
    final LongAdder duplicates = new LongAdder();
    final LongAdder staleRequests = new LongAdder();
    final LongAdder commandsTooLarge = new LongAdder();
    final LongAdder commandsFull = new LongAdder();
    final LongAdder sessionRefusals = new LongAdder();
    final LongAdder sessionsOpened = new LongAdder();

    CommandAdmission(ReplicaConfig config, SessionTable sessions, CapacityGuard capacity) {
        this.config = config;
        this.sessions = sessions;
        this.capacity = capacity;
    }

    /** Decides what to do with {@code value}, delivered at {@code instance}. */
    Verdict admit(long instance, byte[] value) throws InterruptedException {
        sessions.expire(instance);
        capacity.beginBatch();
        KvBatch batch;
        try {
            batch = KvCodec.decodeBatch(value, config.detection(), config.limits());
        } catch (KvDecodeException e) {
            return refuse(e.addressed(), e.proxyId(), e.batchId(), e.status(), e.getMessage());
        }
        String problem = batch.summary().mode().usesBitmaps()
                ? SummaryVerifier.findProblem(batch.summary(), batch.commands())
                : null;
        if (problem != null) {
            return refuse(true, batch.proxyId(), batch.batchId(), KvStatus.REJECTED, problem);
        }
        AdmittedCommand.BatchOrigin origin = new AdmittedCommand.BatchOrigin(batch.proxyId(), batch.batchId());
        List<KvCommand> commands = batch.commands();
        List<AdmittedCommand> admitted = new ArrayList<>(commands.size());
        for (int i = 0; i < commands.size(); i++) {
            admitted.add(admit(commands.get(i), origin, instance, i));
        }
        return new Admitted(batch, admitted);
    }

    private Refused refuse(boolean addressed, long proxyId, long batchId, KvStatus status, String reason) {
        batchesRefused.increment();
        if (!addressed) {
            refusalsUnaddressed.increment();
        }
        return new Refused(addressed, proxyId, batchId, status, reason);
    }

    private AdmittedCommand admit(KvCommand c, AdmittedCommand.BatchOrigin origin, long instance, int index)
            throws InterruptedException {
        String tooLarge = config.limits().checkCommand(c);
        if (tooLarge != null) {
            commandsTooLarge.increment();
            return AdmittedCommand.answered(c, origin, KvResult.of(KvStatus.TOO_LARGE, tooLarge));
        }
        if (c.op() == KvOp.OPEN_SESSION) {
            sessionsOpened.increment();
            long id = sessions.open(instance, index);
            return AdmittedCommand.answered(c, origin, KvResult.ok(ByteBuffer.allocate(8).putLong(id).array()));
        }
        SessionTable.Admission a = sessions.admit(c.clientId(), c.requestSeq(), instance);
        if (a.refusal() != null) {
            (a.refusalStatus() == KvStatus.SESSION_EXPIRED ? sessionRefusals : staleRequests).increment();
            return AdmittedCommand.answered(c, origin, KvResult.of(a.refusalStatus(), a.refusal()));
        }
        if (a.duplicate()) {
            duplicates.increment();
            return AdmittedCommand.duplicate(c, origin, a.entry());
        }
        String full = capacity.admit(c);
        if (full != null) {
            commandsFull.increment();
            KvResult r = KvResult.of(KvStatus.FULL, full);
            a.entry().complete(r); // a retry of this request gets the same answer
            return AdmittedCommand.answered(c, origin, r);
        }
        return AdmittedCommand.execute(c, origin, a.entry());
    }
}
