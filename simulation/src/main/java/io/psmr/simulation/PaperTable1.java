package io.psmr.simulation;

import java.util.List;

/**
 * Table I of the core paper (§VII-D, "Conflict rate"): the simulated conflict rate for bitmaps of
 * 102,400 and 1,024,000 bits, average graph sizes 1, 5 and 7, and batches of 100 and 200 keys,
 * from 10^9 keys over 10^6 iterations.
 */
public final class PaperTable1 {

    /** One cell of the table. */
    public record Cell(int bitmapBits, int graphSize, int batchSize, double paperPct) {
    }

    /** The cells in the paper's row order, batch size 100 before 200 within a row. */
    public static final List<Cell> CELLS = List.of(
            new Cell(102_400, 1, 100, 9.29), new Cell(102_400, 1, 200, 32.37),
            new Cell(102_400, 5, 100, 38.69), new Cell(102_400, 5, 200, 85.85),
            new Cell(102_400, 7, 100, 49.50), new Cell(102_400, 7, 200, 93.52),
            new Cell(1_024_000, 1, 100, 0.96), new Cell(1_024_000, 1, 200, 3.85),
            new Cell(1_024_000, 5, 100, 4.75), new Cell(1_024_000, 5, 200, 17.78),
            new Cell(1_024_000, 7, 100, 6.61), new Cell(1_024_000, 7, 200, 23.95));

    /** The largest distance from the paper, in percentage points, that issue 3 accepts. */
    public static final double TOLERANCE_PP = 0.5;

    private PaperTable1() {
    }

    /** The paper's figure for a cell of its model, or {@code NaN} if the table has no such cell. */
    public static double paperPct(SimulationConfig c) {
        if (c.keys() != SimulationConfig.DEFAULT_KEYS || c.distribution() != KeyDistribution.UNIFORM) {
            return Double.NaN;
        }
        for (Cell cell : CELLS) {
            if (cell.bitmapBits == c.bitmapBits() && cell.graphSize == c.graphSize()
                    && cell.batchSize == c.batchSize()) {
                return cell.paperPct;
            }
        }
        return Double.NaN;
    }
}
