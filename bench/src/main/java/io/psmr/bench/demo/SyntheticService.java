package io.psmr.bench.demo;

import java.util.Arrays;

import io.psmr.scheduler.Service;

/**
 * The demo's service: per command, a fixed amount of deterministic CPU work (a chain of
 * {@code workRounds} 64-bit hash rounds seeded by the key), then a read or an update of the key's
 * value in a {@code long[]} indexed by key.
 *
 * <p>Threads: safe for concurrent commands on different keys, which is all the scheduler allows;
 * each key's element is touched only by commands that conflict with each other, so the scheduler's
 * ordering is the only synchronisation needed. Deterministic: the state after a sequence of
 * commands depends only on the sequence.
 */
public final class SyntheticService implements Service<SyntheticCommand, Long> {

    private final long[] values;
    private final int workRounds;

    /**
     * @param keySpace   number of keys; commands' keys must lie in {@code [0, keySpace)}
     * @param workRounds hash rounds per command, at least 0
     */
    public SyntheticService(int keySpace, int workRounds) {
        if (keySpace < 1) {
            throw new IllegalArgumentException("key space must be at least 1, got " + keySpace);
        }
        if (workRounds < 0) {
            throw new IllegalArgumentException("work rounds must be at least 0, got " + workRounds);
        }
        this.values = new long[keySpace];
        this.workRounds = workRounds;
    }

    @Override
    public Long execute(SyntheticCommand command) {
        long h = work(command.keyNumber(), workRounds);
        int k = command.keyNumber();
        if (command.isWrite()) {
            long v = values[k] * 31 + h;
            values[k] = v;
            return v;
        }
        return values[k] ^ h;
    }

    /** The CPU work of one command: {@code rounds} dependent mixing steps (SplitMix64's finaliser). */
    static long work(long key, int rounds) {
        long h = key * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < rounds; i++) {
            h ^= h >>> 31;
            h *= 0xBF58476D1CE4E5B9L;
        }
        return h;
    }

    /** Clears the state. Only while no scheduler is executing commands on this service. */
    public void reset() {
        Arrays.fill(values, 0);
    }

    /** A digest of the whole state. Only while no scheduler is executing commands on this service. */
    public long digest() {
        long d = 0;
        for (int i = 0; i < values.length; i++) {
            d = d * 0x100000001B3L + values[i];
        }
        return d;
    }
}
