package io.psmr.kvstore;

import io.psmr.kvstore.ratis.RatisReplica;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.CommandError;
import io.psmr.scheduler.ResultSink;
import io.psmr.scheduler.SummaryVerifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The one path a delivered value takes through a replica, whatever orders it ({@link Replica} for
 * psmr's own broadcasts, {@link RatisReplica} behind Ratis): decode → verify the summary → admit each
 * command → refuse or schedule → execute → answer; and the one set of counters that path keeps
 * ({@link #stats()}). The runtimes only carry values in and replies out.
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
 *   <li><b>Answer</b> each command once its outcome is known ({@link #answer}, {@link #answerError}):
 *       an executed command's result is recorded in the reply cache, a duplicate is answered with its
 *       original's result when that is known. A refused value gets one {@link KvReply#WHOLE_BATCH}
 *       reply ({@link Refused#replies()}), or none when its header could not be read.</li>
 * </ol>
 * Every verdict depends only on delivered data and the replicated configuration, so every replica
 * decides alike, and both runtimes answer alike.
 *
 * <p><b>Threads.</b> {@link #decode} (steps 1 and 2): any thread; it is pure, so a runtime may decode
 * values ahead of admission ({@link Replica} does, in its {@link DecodeStage}). {@link #admit},
 * {@link #handedOver} and {@link #refuseScheduled}: one thread, in delivery order — the replica's
 * delivery thread or Ratis' updater thread; the capacity check may wait there for the scheduler to
 * become quiescent. {@link #execute}, {@link #answer},
 * {@link #answerError}: the scheduler's workers, concurrently for batches that do not conflict; they
 * never block (a duplicate's answer waits on its original without holding the thread).
 * {@link #stats()}: any thread.
 */
public final class BatchAdmitter {

    /** The outcome for one delivered value: a batch to schedule, or a refusal of the whole value. */
    public sealed interface Verdict permits Admitted, Refused {
    }

    /** Schedule this batch: its instance, its admitted commands, the delivered summary. */
    public record Admitted(Batch<AdmittedCommand> batch) implements Verdict {
    }

    /**
     * The whole value is refused; nothing runs.
     *
     * @param replies the answer to send: one {@link KvReply#WHOLE_BATCH} reply naming the batch, its proxy,
     *                the instance and why; empty when the proxy and batch ids could not be read
     */
    public record Refused(List<KvReply> replies) implements Verdict {
    }

    private final ReplicaConfig config;
    private final KvService service;
    private final SessionTable sessions;
    private final CapacityGuard capacity;

    private final LongAdder batchesDelivered = new LongAdder();
    private final LongAdder batchesRefused = new LongAdder();
    private final LongAdder refusalsUnaddressed = new LongAdder();
    private final LongAdder commandsExecuted = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder staleRequests = new LongAdder();
    private final LongAdder commandsTooLarge = new LongAdder();
    private final LongAdder commandsFull = new LongAdder();
    private final LongAdder sessionsOpened = new LongAdder();
    private final LongAdder sessionRefusals = new LongAdder();
    private volatile long lastInstance;

    /**
     * An admitter executing through {@code service}, with a new session table and capacity guard as
     * {@code config} says.
     *
     * @param quiescer     waits until every batch handed to the scheduler has executed (for the capacity guard)
     * @param lastInstance the instance the replica resumes after, 0 if none
     */
    public BatchAdmitter(ReplicaConfig config, KvService service, CapacityGuard.Quiescer quiescer, long lastInstance) {
        this.config = config;
        this.service = service;
        this.sessions = new SessionTable(config.replyCacheWindow(), config.maxSessions(), config.sessionTimeoutInstances());
        this.capacity = new CapacityGuard(config.capacity(), service, quiescer);
        this.lastInstance = lastInstance;
    }

    /** The session table, to write to or read from a checkpoint or snapshot (admission's thread). */
    public SessionTable sessions() {
        return sessions;
    }

    /** The capacity guard, to write to or read from a checkpoint or snapshot (admission's thread). */
    public CapacityGuard capacity() {
        return capacity;
    }

    /** A snapshot of the counters. */
    public ReplicaStats stats() {
        return new ReplicaStats(batchesDelivered.sum(), batchesRefused.sum(), refusalsUnaddressed.sum(),
                commandsExecuted.sum(), duplicates.sum(), staleRequests.sum(), commandsTooLarge.sum(),
                commandsFull.sum(), sessionsOpened.sum(), sessionRefusals.sum(), lastInstance);
    }

    // ---------------------------------------------------------------- admission (one thread)

    /**
     * A delivered value after steps 1 and 2 (decode, verify): a batch to admit, or the reason the whole
     * value is refused. It depends only on the value and the replicated configuration.
     */
    public sealed interface Decoded permits DecodedBatch, DecodeRefusal {
    }

    /** The value decoded to {@code batch}, whose summary covers its keys. */
    public record DecodedBatch(KvBatch batch) implements Decoded {
    }

    /**
     * The value is refused whole with {@code status} and {@code reason}; {@code addressed} says whether its
     * proxy and batch ids could be read (then the refusal is answered to them).
     */
    public record DecodeRefusal(boolean addressed, long proxyId, long batchId, KvStatus status, String reason)
            implements Decoded {
    }

    /**
     * Steps 1 and 2 for {@code value}: decode it (rebuilding an exact-key summary from its commands) and
     * verify a bitmap summary. Pure: touches no admission state, so it may run on any thread, ahead of
     * {@link #admit(long, Decoded)} (the replica's decode stage, {@link DecodeStage}); every replica
     * decodes a value to the same outcome.
     */
    public static Decoded decode(byte[] value, ReplicaConfig config) {
        KvBatch batch;
        try {
            batch = KvCodec.decodeBatch(value, config.detection(), config.limits());
        } catch (KvDecodeException e) {
            return new DecodeRefusal(e.addressed(), e.proxyId(), e.batchId(), e.status(), e.getMessage());
        }
        String problem = batch.summary().mode().usesBitmaps()
                ? SummaryVerifier.findProblem(batch.summary(), batch.commands())
                : null;
        if (problem != null) {
            return new DecodeRefusal(true, batch.proxyId(), batch.batchId(), KvStatus.REJECTED, problem);
        }
        return new DecodedBatch(batch);
    }

    /** Decides what to do with {@code value}, delivered at {@code instance}: {@link #decode}, then {@link #admit(long, Decoded)}. */
    public Verdict admit(long instance, byte[] value) throws InterruptedException {
        return admit(instance, decode(value, config));
    }

    /**
     * Decides what to do with the value delivered at {@code instance}, which {@link #decode} made
     * {@code decoded} (steps 3 and 4). Admission's thread, in delivery order, once per instance.
     */
    public Verdict admit(long instance, Decoded decoded) throws InterruptedException {
        batchesDelivered.increment();
        sessions.expire(instance);
        capacity.beginBatch();
        if (decoded instanceof DecodeRefusal r) {
            return refuse(instance, r.addressed(), r.proxyId(), r.batchId(), r.status(), r.reason());
        }
        KvBatch batch = ((DecodedBatch) decoded).batch();
        AdmittedCommand.BatchOrigin origin = new AdmittedCommand.BatchOrigin(batch.proxyId(), batch.batchId());
        List<KvCommand> commands = batch.commands();
        List<AdmittedCommand> admitted = new ArrayList<>(commands.size());
        for (int i = 0; i < commands.size(); i++) {
            admitted.add(admit(commands.get(i), origin, instance, i));
        }
        return new Admitted(new Batch<>(instance, admitted, batch.summary()));
    }

    /** The runtime handed the batch {@link #admit} made at {@code instance} to its scheduler. */
    public void handedOver(long instance) {
        lastInstance = instance;
    }

    /**
     * The scheduler refused a batch {@link #admit} made (it breaks one of the scheduler's own rules; {@code reason}
     * says which), so none of its commands ran: counts it refused, completes the reply-cache entries admission
     * opened for it with the REJECTED answer (so a duplicate waiting on one, or a retry, is answered instead of
     * waiting forever), and returns the whole-batch answer, as a refusal by {@link #admit} would.
     */
    public List<KvReply> refuseScheduled(Batch<AdmittedCommand> batch, String reason) {
        if (batch.commands().isEmpty()) {
            return refuse(batch.instance(), false, 0, 0, KvStatus.REJECTED, reason).replies(); // nobody to answer
        }
        AdmittedCommand.BatchOrigin origin = batch.commands().get(0).origin;
        Refused refused = refuse(batch.instance(), true, origin.proxyId(), origin.batchId(), KvStatus.REJECTED, reason);
        KvResult rejected = refused.replies().get(0).result();
        for (AdmittedCommand c : batch.commands()) {
            if (c.verdict == AdmittedCommand.Verdict.EXECUTE) {
                c.entry.complete(rejected);
            }
        }
        return refused.replies();
    }

    private Refused refuse(long instance, boolean addressed, long proxyId, long batchId, KvStatus status, String reason) {
        batchesRefused.increment();
        lastInstance = instance;
        if (!addressed) {
            refusalsUnaddressed.increment();
            return new Refused(List.of());
        }
        String detail = "batch " + batchId + " of proxy " + proxyId + " at instance " + instance + " refused: " + reason;
        return new Refused(List.of(new KvReply(config.replicaId(), proxyId, batchId, KvReply.WHOLE_BATCH, instance,
                KvResult.of(status, detail))));
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

    /**
     * Opens session {@code sessionId}, which another admitter's OPEN_SESSION opened, in this admitter's table, last used
     * at {@code instance} (MLBFT: one admitter per partition, and a session is open in every partition). Admission's
     * thread.
     */
    public void adoptSession(long sessionId, long instance) {
        sessions.adopt(sessionId, instance);
    }

    /**
     * Runs every command of {@code admitted}, which {@link #admit} made at {@code instance}, on the calling thread in
     * command order, answering each through {@code send}; for a runtime that executes a batch whole (MLBFT's partition
     * workers) rather than through the scheduler.
     *
     * @return the ids of the sessions the batch's OPEN_SESSION commands opened, in command order
     */
    public long[] runInOrder(Admitted admitted, Consumer<KvReply> send) {
        Batch<AdmittedCommand> batch = admitted.batch();
        long instance = batch.instance();
        List<AdmittedCommand> commands = batch.commands();
        long[] opened = new long[0];
        for (int i = 0; i < commands.size(); i++) {
            AdmittedCommand c = commands.get(i);
            answer(instance, i, c, execute(c), send);
            if (c.command.op() == KvOp.OPEN_SESSION && c.preset != null && c.preset.status() == KvStatus.OK) {
                opened = java.util.Arrays.copyOf(opened, opened.length + 1);
                opened[opened.length - 1] = SessionTable.sessionId(instance, i);
            }
        }
        return opened;
    }

    // ---------------------------------------------------------------- execution and answers (workers)

    /** The scheduler's service: runs a command admitted to execute; any other gets its preset answer (null for a duplicate). */
    public KvResult execute(AdmittedCommand c) {
        if (c.verdict != AdmittedCommand.Verdict.EXECUTE) {
            return c.preset; // a duplicate is answered from the reply cache by answer()
        }
        commandsExecuted.increment();
        return service.execute(c.command);
    }

    /**
     * Sends the answer to command {@code index} of batch {@code instance}, which ran to {@code result}: records it
     * for an executed command, and for a duplicate sends its original's result once known (maybe later, on the
     * worker that completes the original).
     */
    public void answer(long instance, int index, AdmittedCommand c, KvResult result, Consumer<KvReply> send) {
        switch (c.verdict) {
            case EXECUTE -> {
                c.entry.complete(result);
                send.accept(reply(instance, index, c, result));
            }
            case ANSWERED -> send.accept(reply(instance, index, c, result));
            case DUPLICATE -> c.entry.whenComplete(r -> send.accept(reply(instance, index, c, r)));
        }
    }

    /**
     * Sends the answer to command {@code index} of batch {@code instance}, which did not complete: REJECTED or
     * FAILED with the scheduler's message, recorded for an executed command. (Only a command admitted to execute
     * can fail; the others' service call returns at once.)
     */
    public void answerError(long instance, int index, AdmittedCommand c, CommandError error, Consumer<KvReply> send) {
        KvStatus status = error.kind() == CommandError.Kind.REJECTED ? KvStatus.REJECTED : KvStatus.FAILED;
        KvResult r = KvResult.of(status, error.message());
        if (c.verdict == AdmittedCommand.Verdict.EXECUTE) {
            c.entry.complete(r);
        }
        send.accept(reply(instance, index, c, r));
    }

    /** A scheduler result sink that answers every outcome through {@code send}. Worker threads. */
    ResultSink<AdmittedCommand, KvResult> sink(Consumer<KvReply> send) {
        return new ResultSink<>() {
            @Override
            public void onResult(long instance, int index, AdmittedCommand command, KvResult result) {
                answer(instance, index, command, result, send);
            }

            @Override
            public void onError(long instance, int index, AdmittedCommand command, CommandError error) {
                answerError(instance, index, command, error, send);
            }
        };
    }

    private KvReply reply(long instance, int index, AdmittedCommand c, KvResult result) {
        return new KvReply(config.replicaId(), c.origin.proxyId(), c.origin.batchId(), index, instance, result);
    }
}
