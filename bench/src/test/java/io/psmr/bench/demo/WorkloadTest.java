package io.psmr.bench.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The demo's {@code --conflict} counts batches, as {@code bench} and {@code load} do: a conflicting batch's first
 * command writes the hot key, and no other command touches it. Seeds are fixed; a failure names them.
 */
class WorkloadTest {

    private static final long SEED = 42;

    @Test
    void conflictsArePercentagesOfBatches() {
        int batch = 200;
        int batches = 2000;
        List<SyntheticCommand> commands = Workload.commands(batch * batches, batch, SEED, 25);
        int hot = 0;
        for (int i = 0; i < commands.size(); i++) {
            SyntheticCommand c = commands.get(i);
            if (c.keyNumber() == Workload.HOT_KEY) {
                assertEquals(0, i % batch, "seed " + SEED + ": the hot key at command " + i + ", not the first of its batch");
                assertTrue(c.isWrite(), "seed " + SEED + ": a conflicting batch writes the hot key");
                hot++;
            }
        }
        // The hot key is also key 0 of the uniform key space; with this seed no uniform draw hits it.
        // 25% of 2,000 batches: 500 expected; binomial sd about 19, so 400..600 fails only for a broken generator.
        assertTrue(hot >= 400 && hot <= 600, "seed " + SEED + ": " + hot + " of " + batches + " batches conflict");
    }

    @Test
    void batchesOfOneAreSingleWritesOfTheHotKey() {
        List<SyntheticCommand> commands = Workload.commands(4000, 1, SEED, 50);
        long hot = commands.stream().filter(c -> c.keyNumber() == Workload.HOT_KEY).count();
        assertTrue(hot >= 1800 && hot <= 2200, "seed " + SEED + ": " + hot + " of 4000 batches of one conflict");
        assertTrue(commands.stream().filter(c -> c.keyNumber() == Workload.HOT_KEY).allMatch(SyntheticCommand::isWrite));
    }

    @Test
    void withoutConflictsEveryBatchSizeGivesTheSameCommands() {
        assertEquals(describe(Workload.commands(1000, 200, SEED, 0)), describe(Workload.commands(1000, 1, SEED, 0)));
        assertEquals(describe(Workload.commands(1000, 200, SEED, 0).subList(0, 100)),
                describe(Workload.commands(100, 200, SEED, 0)));
    }

    private static List<String> describe(List<SyntheticCommand> commands) {
        return commands.stream().map(c -> c.keyNumber() + (c.isWrite() ? "w" : "r")).toList();
    }
}
