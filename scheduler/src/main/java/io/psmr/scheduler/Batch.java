package io.psmr.scheduler;

import java.util.List;
import java.util.Objects;

/**
 * A batch as delivered by atomic broadcast: its instance in the total order, its commands in the
 * order they must run, and the conflict summary of their keys.
 *
 * <p>Immutable as far as the scheduler is concerned: the command list is not copied, so the
 * caller must not change it after delivery.
 *
 * @param <C> the command type
 */
public final class Batch<C extends Command> {

    private final long instance;
    private final List<C> commands;
    private final ConflictSummary summary;

    /**
     * @param instance the delivery instance; instances delivered to one scheduler strictly increase
     * @param commands the commands, at least one, none null
     * @param summary  the conflict summary of {@code commands}
     * @throws IllegalArgumentException if {@code commands} is null or empty, or {@code summary} is null
     */
    public Batch(long instance, List<C> commands, ConflictSummary summary) {
        if (commands == null || commands.isEmpty()) {
            throw new IllegalArgumentException("batch " + instance + " has no commands");
        }
        if (summary == null) {
            throw new IllegalArgumentException("batch " + instance + " has no conflict summary");
        }
        this.instance = instance;
        this.commands = commands;
        this.summary = summary;
    }

    /** A batch whose summary is built from its commands under {@code detection}. */
    public static <C extends Command> Batch<C> of(long instance, List<C> commands, ConflictDetection detection) {
        Objects.requireNonNull(commands, "commands");
        return new Batch<>(instance, commands, SummaryBuilder.summarize(detection, commands));
    }

    /** The delivery instance. */
    public long instance() {
        return instance;
    }

    /** The commands, in execution order. */
    public List<C> commands() {
        return commands;
    }

    /** Number of commands. */
    public int size() {
        return commands.size();
    }

    /** The conflict summary. */
    public ConflictSummary summary() {
        return summary;
    }

    @Override
    public String toString() {
        return "Batch[instance=" + instance + ", commands=" + commands.size() + ", " + summary + "]";
    }
}
