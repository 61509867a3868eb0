package io.psmr.bench.chart;

import org.knowm.xchart.CategorySeries;

/** Reads the whiskers of a {@link RangeBars#RANGE_SERIES} back as min and max values. */
public final class ChartAsserts {

    private ChartAsserts() {
    }

    /** The bottom of each whisker. */
    public static double[] mins(CategorySeries range) {
        double[] y = range.getYData();
        double[] e = range.getExtraValues();
        double[] out = new double[y.length];
        for (int i = 0; i < y.length; i++) {
            out[i] = y[i] - e[i];
        }
        return out;
    }

    /** The top of each whisker. */
    public static double[] maxes(CategorySeries range) {
        double[] y = range.getYData();
        double[] e = range.getExtraValues();
        double[] out = new double[y.length];
        for (int i = 0; i < y.length; i++) {
            out[i] = y[i] + e[i];
        }
        return out;
    }
}
