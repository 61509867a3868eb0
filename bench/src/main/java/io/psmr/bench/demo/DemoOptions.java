package io.psmr.bench.demo;

/**
 * What the demo runs.
 *
 * @param commands      commands per timed run of the batched configurations, at least 1
 * @param cbaseCommands commands per timed run of CBASE (batch 1), at least 1
 * @param seed          seed of the workload
 * @param conflictPercent share of batches, 0 to 100, that also write one hot key
 * @param workRounds    hash rounds of CPU work per command, at least 0
 * @param rounds        timed runs of every configuration, interleaved; the median is reported
 */
public record DemoOptions(int commands, int cbaseCommands, long seed, int conflictPercent, int workRounds, int rounds) {

    public DemoOptions {
        if (commands < 1 || cbaseCommands < 1 || rounds < 1) {
            throw new IllegalArgumentException("commands, CBASE commands and rounds must be at least 1");
        }
        if (conflictPercent < 0 || conflictPercent > 100) {
            throw new IllegalArgumentException("conflict percentage must be 0 to 100, got " + conflictPercent);
        }
        if (workRounds < 0) {
            throw new IllegalArgumentException("work rounds must be at least 0, got " + workRounds);
        }
    }
}
