package io.psmr.bench.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.psmr.scheduler.Batch;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.SummaryBuilder;

/**
 * The demo's synthetic workload: single-key commands, half reads and half writes, with keys drawn
 * uniformly from {@link #KEY_SPACE} keys. Conflicts are counted in batches, as {@code psmr bench}
 * and {@code psmr load} count them: {@code conflictPercent}% of the batches, chosen at random, also
 * write one hot key ({@link #HOT_KEY}): their first command becomes a write of it, so batches of one
 * command are then single writes of the hot key. With no conflicts, two batches of 200 commands
 * share a key with probability of about 4%, so the workload is nearly conflict-free.
 */
public final class Workload {

    /** Number of distinct keys. */
    public static final int KEY_SPACE = 1_000_000;

    /** The key that the hot share of the commands goes to. */
    public static final int HOT_KEY = 0;

    private Workload() {
    }

    /**
     * The command sequence for a seed, to be cut into batches of {@code batchSize}; the same
     * arguments give the same sequence, and with no conflicts every batch size gives the same one.
     *
     * @param count           number of commands, at least 0
     * @param batchSize       commands per batch, at least 1
     * @param seed            seed of the generator
     * @param conflictPercent share of batches, 0 to 100, whose first command writes {@link #HOT_KEY}
     */
    public static List<SyntheticCommand> commands(int count, int batchSize, long seed, int conflictPercent) {
        if (count < 0) {
            throw new IllegalArgumentException("command count must be at least 0, got " + count);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, got " + batchSize);
        }
        if (conflictPercent < 0 || conflictPercent > 100) {
            throw new IllegalArgumentException("conflict percentage must be 0 to 100, got " + conflictPercent);
        }
        Random random = new Random(seed);
        List<SyntheticCommand> commands = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (i % batchSize == 0 && conflictPercent > 0 && random.nextInt(100) < conflictPercent) {
                commands.add(new SyntheticCommand(HOT_KEY, true));
                continue;
            }
            int key = random.nextInt(KEY_SPACE);
            commands.add(new SyntheticCommand(key, random.nextBoolean()));
        }
        return commands;
    }

    /**
     * Cuts {@code commands} into batches of {@code batchSize} (the last one may be shorter) with
     * instances 1, 2, ..., and attaches each batch's summary under {@code detection}, as the client
     * proxy does before broadcasting.
     */
    public static List<Batch<SyntheticCommand>> batches(List<SyntheticCommand> commands, int batchSize,
                                                        ConflictDetection detection) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, got " + batchSize);
        }
        SummaryBuilder summaries = new SummaryBuilder(detection);
        List<Batch<SyntheticCommand>> batches = new ArrayList<>((commands.size() + batchSize - 1) / batchSize);
        long instance = 1;
        for (int from = 0; from < commands.size(); from += batchSize) {
            List<SyntheticCommand> part = List.copyOf(commands.subList(from, Math.min(commands.size(), from + batchSize)));
            part.forEach(summaries::add);
            batches.add(new Batch<>(instance++, part, summaries.build()));
        }
        return batches;
    }
}
