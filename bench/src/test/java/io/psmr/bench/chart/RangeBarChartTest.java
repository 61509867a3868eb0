package io.psmr.bench.chart;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.junit.jupiter.api.Test;

class RangeBarChartTest {

    @Test
    void mediansPerSeriesAndAWhiskerFromMinToMaxOnEveryBar() {
        CategoryChart chart = new CategoryChartBuilder().build();
        RangeBars.plot(chart, List.of(new RangeBars.Bar("a", "one", 10, 4, 13), new RangeBars.Bar("b", "two", 7, 7, 9)));
        assertEquals(List.of("one", "two", RangeBars.RANGE_SERIES), chart.getSeriesCollection().stream().map(CategorySeries::getName).toList());
        assertArrayEquals(new double[] {10, Double.NaN}, chart.getSeries("one").getYData());
        assertArrayEquals(new double[] {Double.NaN, 7}, chart.getSeries("two").getYData());
        CategorySeries range = chart.getSeries(RangeBars.RANGE_SERIES);
        assertEquals(List.of("a", "b"), List.copyOf(range.getXData()));
        assertArrayEquals(new double[] {4, 7}, ChartAsserts.mins(range), 1e-9);
        assertArrayEquals(new double[] {13, 9}, ChartAsserts.maxes(range), 1e-9);
    }

    @Test
    void refusesDisorderedValuesAndSharedCategories() {
        assertEquals("bar 'a': expected min <= median <= max, got 5.0, 4.0, 6.0",
                assertThrows(IllegalArgumentException.class, () -> new RangeBars.Bar("a", "s", 4, 5, 6)).getMessage());
        CategoryChart chart = new CategoryChartBuilder().build();
        assertEquals("two bars in category 'a'", assertThrows(IllegalArgumentException.class, () -> RangeBars.plot(chart,
                List.of(new RangeBars.Bar("a", "s", 1, 1, 1), new RangeBars.Bar("a", "t", 1, 1, 1)))).getMessage());
    }
}
