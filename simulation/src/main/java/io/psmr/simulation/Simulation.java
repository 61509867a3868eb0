package io.psmr.simulation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs cells and sets each beside its analytic figures and the paper's: the one entry point the
 * command line and other modules need.
 */
public final class Simulation {

    private final SimulationRunner runner;
    private final long seed;
    private final ProgressDisplay display;

    /**
     * A simulation with a global seed.
     *
     * @param threads worker threads; results do not depend on it
     * @param seed    the global seed every cell's stream is derived from
     * @param display what to show while cells run
     */
    public Simulation(int threads, long seed, ProgressDisplay display) {
        this.runner = new SimulationRunner(threads);
        this.seed = seed;
        this.display = display;
    }

    /** The global seed. */
    public long seed() {
        return seed;
    }

    /** Simulates every cell in one pass over the pool; results in the order of {@code cells}. */
    public List<CellResult> run(List<SimulationConfig> cells) {
        List<ConflictCounts> counts = runner.run(cells, seed, display);
        // The key overlap is costly for Zipf and the same across a bitmap sweep: compute it once.
        Map<SimulationConfig, KeyOverlap> overlaps = new HashMap<>();
        List<CellResult> out = new ArrayList<>(cells.size());
        for (int i = 0; i < cells.size(); i++) {
            SimulationConfig c = cells.get(i);
            KeyOverlap overlap = overlaps.computeIfAbsent(c.withBitmapBits(1).withIterations(1), KeyOverlap::of);
            out.add(new CellResult(c, counts.get(i), AnalyticModel.rates(c, overlap), PaperTable1.paperPct(c)));
        }
        return out;
    }

    /** Simulates one cell. */
    public CellResult run(SimulationConfig cell) {
        return run(List.of(cell)).get(0);
    }

    /** The cells of the paper's Table I at {@code iterations} iterations each, in the table's order. */
    public static List<SimulationConfig> table1Cells(long iterations) {
        List<SimulationConfig> cells = new ArrayList<>();
        for (PaperTable1.Cell c : PaperTable1.CELLS) {
            cells.add(SimulationConfig.paper(c.bitmapBits(), c.batchSize(), c.graphSize(), iterations));
        }
        return cells;
    }
}
