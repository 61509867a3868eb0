package io.psmr.bench.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line's durations: a number with an optional unit {@code ms}, {@code s} (the default),
 * {@code m} or {@code h}, such as {@code 10s}, {@code 500ms} or {@code 1.5m}. One parser for every
 * command that takes one ({@code load}, {@code chaos}).
 */
public final class DurationText {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");

    private DurationText() {
    }

    /**
     * Parses {@code text} given for {@code flag}.
     *
     * @throws IllegalArgumentException naming the flag, if it is not a duration or is too long
     */
    public static Duration parse(String flag, String text) {
        Matcher mt = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!mt.matches()) {
            throw new IllegalArgumentException(flag + " must be a number with an optional unit ms, s, m or h (e.g. 10s, 500ms), got '"
                    + text + "'");
        }
        double v = Double.parseDouble(mt.group(1));
        String unit = mt.group(2) == null ? "s" : mt.group(2);
        double nanos = v * switch (unit) {
            case "ms" -> 1e6;
            case "m" -> 60e9;
            case "h" -> 3600e9;
            default -> 1e9;
        };
        if (!(nanos < 1e18)) {
            throw new IllegalArgumentException(flag + " is too long: " + text);
        }
        return Duration.ofNanos(Math.round(nanos));
    }
}
