package io.psmr.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Results depend on the seed and the parameters only: not on threads, nor on the other cells of a run. */
class DeterminismTest {

    private static final List<SimulationConfig> CELLS = List.of(
            SimulationConfig.paper(102_400, 100, 5, 150_000),
            SimulationConfig.paper(10_000, 20, 3, 70_000),
            new SimulationConfig(5000, 16, 2, 100_000, 90_000, KeyDistribution.ZIPF, 0.9, 0.4, 64));

    @Test
    void sameSeedSameCountsWhateverTheThreadCount() {
        long seed = 42;
        List<ConflictCounts> one = new SimulationRunner(1).run(CELLS, seed, ProgressDisplay.NONE);
        List<ConflictCounts> two = new SimulationRunner(2).run(CELLS, seed, ProgressDisplay.NONE);
        List<ConflictCounts> five = new SimulationRunner(5).run(CELLS, seed, ProgressDisplay.NONE);
        assertEquals(one, two, "seed " + seed);
        assertEquals(one, five, "seed " + seed);
    }

    @Test
    void aCellDoesNotDependOnTheOtherCellsOfItsRun() {
        long seed = 43;
        List<ConflictCounts> all = new SimulationRunner(2).run(CELLS, seed, ProgressDisplay.NONE);
        for (int i = 0; i < CELLS.size(); i++) {
            assertEquals(all.get(i), new SimulationRunner(2).run(CELLS.get(i), seed, ProgressDisplay.NONE),
                    "seed " + seed + ", cell " + CELLS.get(i).describe());
        }
    }

    @Test
    void anotherSeedGivesAnotherStream() {
        SimulationConfig c = CELLS.get(0);
        assertNotEquals(new SimulationRunner(2).run(c, 1, ProgressDisplay.NONE),
                new SimulationRunner(2).run(c, 2, ProgressDisplay.NONE));
    }
}
