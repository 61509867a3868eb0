package io.psmr.bench.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads every time option of the command line ({@code --duration}, {@code --warmup}, {@code --tick},
 * {@code --timeout}, {@code --linger}, {@code --stall-timeout}, ...): a whole number followed by a
 * unit, {@code ms}, {@code s}, {@code m} or {@code h}, such as {@code 500ms}, {@code 10s}, {@code 2m}
 * or {@code 1h}. A bare number is refused, because whether {@code 10} meant seconds or milliseconds
 * differed between commands. Ranges are each command's to check.
 *
 * <p>Stateless; any thread.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    /** The grammar, for messages and usage text. */
    public static final String GRAMMAR = "a whole number with a unit ms, s, m or h, such as 500ms, 10s, 2m or 1h";

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h)");
    private static final Pattern BARE = Pattern.compile("\\d+(\\.\\d+)?");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * Parses {@code text}.
     *
     * @throws TypeConversionException saying what is wrong and the grammar
     */
    public static Duration parse(String text) {
        String t = text == null ? "" : text.trim();
        Matcher mt = DURATION.matcher(t);
        if (!mt.matches()) {
            String why = BARE.matcher(t).matches() ? "'" + text + "' has no unit" : "'" + text + "' is not a duration";
            throw new TypeConversionException(why + ": write " + GRAMMAR);
        }
        long v = Long.parseLong(mt.group(1));
        return switch (mt.group(2)) {
            case "ms" -> Duration.ofMillis(v);
            case "s" -> Duration.ofSeconds(v);
            case "m" -> Duration.ofMinutes(v);
            default -> Duration.ofHours(v);
        };
    }

    /** {@code d} the way this converter reads it back, in the largest unit that keeps it whole: {@code 90s}, {@code 500ms}. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms != 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms != 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0 && ms != 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
