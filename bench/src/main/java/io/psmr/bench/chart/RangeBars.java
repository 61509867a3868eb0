package io.psmr.bench.chart;

import java.awt.Color;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Bars at the median of measured runs, each with a whisker from the slowest to the fastest run, on an
 * XChart {@link CategoryChart}: the one way {@code bench} charts show spread.
 *
 * <p>How, in XChart 4.0.3: its error bars are symmetric (one value either side of y), and every series
 * of a clustered bar chart takes its own slot in the cluster, markers included, so extra "min" and "max"
 * series would sit beside the bars rather than on them. So each bar gets its own category, the chart is
 * overlapped (every series drawn at the category's centre), one bar series per {@code series} holds the
 * medians (NaN, not drawn, in the other series' categories), and one markerless scatter series,
 * {@link #RANGE_SERIES}, draws each whisker as an error bar of half the range around the midrange:
 * exactly min to max.
 *
 * <p>Static and stateless; call from any thread, one chart per thread.
 */
public final class RangeBars {

    /** The name of the whisker series. */
    public static final String RANGE_SERIES = "min-max of runs";

    /**
     * One bar.
     *
     * @param category the x-axis label, unique per bar
     * @param series   the legend entry (colour) the bar belongs to
     * @param median   the bar's height
     * @param min      the whisker's bottom
     * @param max      the whisker's top
     */
    public record Bar(String category, String series, double median, double min, double max) {

        /** Checks the order of the values. */
        public Bar {
            if (!(min <= median && median <= max)) {
                throw new IllegalArgumentException("bar '" + category + "': expected min <= median <= max, got "
                        + min + ", " + median + ", " + max);
            }
        }
    }

    private RangeBars() {
    }

    /**
     * Adds {@code bars} to {@code chart}, which should have no series yet, in the order given.
     *
     * @throws IllegalArgumentException if two bars share a category
     */
    public static void plot(CategoryChart chart, List<Bar> bars) {
        if (bars.isEmpty()) {
            return;
        }
        List<String> categories = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        Map<String, Double[]> medians = new LinkedHashMap<>();
        for (Bar b : bars) {
            if (!seen.add(b.category())) {
                throw new IllegalArgumentException("two bars in category '" + b.category() + "'");
            }
            categories.add(b.category());
        }
        double[] mid = new double[bars.size()];
        double[] half = new double[bars.size()];
        for (int i = 0; i < bars.size(); i++) {
            Bar b = bars.get(i);
            medians.computeIfAbsent(b.series(), k -> {
                Double[] nan = new Double[bars.size()];
                Arrays.fill(nan, Double.NaN);
                return nan;
            })[i] = b.median();
            mid[i] = (b.min() + b.max()) / 2;
            half[i] = (b.max() - b.min()) / 2;
        }
        chart.getStyler().setOverlapped(true);
        chart.getStyler().setErrorBarsColorSeriesColor(true);
        for (Map.Entry<String, Double[]> e : medians.entrySet()) {
            chart.addSeries(e.getKey(), categories, Arrays.asList(e.getValue()));
        }
        CategorySeries range = chart.addSeries(RANGE_SERIES, categories,
                Arrays.stream(mid).boxed().toList(), Arrays.stream(half).boxed().toList());
        range.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
        range.setMarker(SeriesMarkers.NONE);
        range.setLineColor(Color.BLACK);
        range.setMarkerColor(Color.BLACK);
    }
}
