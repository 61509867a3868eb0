package io.psmr.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class RunStatisticsTest {

    @Test
    void oddCountTakesTheMiddleValueWhateverTheOrder() {
        RunStatistics s = RunStatistics.of(30.0, 10.0, 20.0);
        assertEquals(20.0, s.median());
        assertEquals(10.0, s.min());
        assertEquals(30.0, s.max());
        assertEquals(3, s.count());
    }

    @Test
    void evenCountTakesTheMeanOfTheMiddleTwo() {
        RunStatistics s = RunStatistics.of(new long[] {4, 1, 3, 2});
        assertEquals(2.5, s.median());
        assertEquals(1.0, s.min());
        assertEquals(4.0, s.max());
    }

    @Test
    void oneRunIsItsOwnMedianMinAndMax() {
        RunStatistics s = RunStatistics.of(List.of(7.5));
        assertEquals(7.5, s.median());
        assertEquals(7.5, s.min());
        assertEquals(7.5, s.max());
        assertEquals(1, s.count());
    }

    @Test
    void metricOfRecords() {
        record Run(double ops) {
        }
        RunStatistics s = RunStatistics.of(List.of(new Run(5), new Run(1), new Run(9), new Run(3)), Run::ops);
        assertEquals(4.0, s.median());
        assertEquals(1.0, s.min());
        assertEquals(9.0, s.max());
    }

    @Test
    void doesNotSortTheCallersArray() {
        double[] v = {3, 1, 2};
        RunStatistics.of(v);
        assertEquals(3.0, v[0]);
    }

    @Test
    void refusesNoRunsAndNaN() {
        assertEquals("no measured runs to summarise",
                assertThrows(IllegalArgumentException.class, () -> RunStatistics.of(new double[0])).getMessage());
        assertEquals("a measured run is NaN: [1.0, NaN]",
                assertThrows(IllegalArgumentException.class, () -> RunStatistics.of(1.0, Double.NaN)).getMessage());
    }
}
