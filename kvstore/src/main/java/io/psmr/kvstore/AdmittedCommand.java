package io.psmr.kvstore;

import io.psmr.scheduler.Command;

/**
 * A delivered command with the verdict the replica reached for it on the delivery thread, before
 * scheduling: execute it, answer it as a duplicate of an earlier command, or answer it with a fixed
 * result (over a limit, or older than the reply-cache window). Its footprint is the command's, so
 * the batch's summary still covers it.
 */
public final class AdmittedCommand implements Command {

    /** What the replica does with the command. */
    enum Verdict {
        /** Execute it and record its result in {@link #entry}. */
        EXECUTE,
        /** Do not execute; answer with {@link #entry}'s result once known. */
        DUPLICATE,
        /** Do not execute; answer with {@link #preset}. */
        ANSWERED
    }

    final KvCommand command;
    final BatchOrigin origin;
    final Verdict verdict;
    final CachedReply entry;
    final KvResult preset;

    private AdmittedCommand(KvCommand command, BatchOrigin origin, Verdict verdict, CachedReply entry, KvResult preset) {
        this.command = command;
        this.origin = origin;
        this.verdict = verdict;
        this.entry = entry;
        this.preset = preset;
    }

    static AdmittedCommand execute(KvCommand c, BatchOrigin origin, CachedReply entry) {
        return new AdmittedCommand(c, origin, Verdict.EXECUTE, entry, null);
    }

    static AdmittedCommand duplicate(KvCommand c, BatchOrigin origin, CachedReply entry) {
        return new AdmittedCommand(c, origin, Verdict.DUPLICATE, entry, null);
    }

    static AdmittedCommand answered(KvCommand c, BatchOrigin origin, KvResult result) {
        return new AdmittedCommand(c, origin, Verdict.ANSWERED, null, result);
    }

    @Override
    public int keyCount() {
        return command.keyCount();
    }

    @Override
    public byte[] key(int i) {
        return command.key(i);
    }

    @Override
    public boolean writes(int i) {
        return command.writes(i);
    }

    /** Who proposed a batch: where its replies go. */
    record BatchOrigin(long proxyId, long batchId) {
    }
}
