package io.psmr.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.TypeConversionException;

/** The one grammar of every time option: a whole number and a unit. */
class DurationConverterTest {

    @ParameterizedTest
    @CsvSource({"500ms, 500", "0ms, 0", "10s, 10000", "2m, 120000", "1h, 3600000", "' 3s ', 3000"})
    void readsAWholeNumberWithAUnit(String text, long millis) {
        assertEquals(Duration.ofMillis(millis), new DurationConverter().convert(text));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "10   | '10' has no unit: write a whole number with a unit ms, s, m or h, such as 500ms, 10s, 2m or 1h",
        "1.5  | '1.5' has no unit: write a whole number with a unit ms, s, m or h",
        "1.5s | '1.5s' is not a duration: write a whole number with a unit ms, s, m or h",
        "10x  | '10x' is not a duration: write",
        "-1s  | '-1s' is not a duration: write",
        "10S  | '10S' is not a duration: write",
        "s    | 's' is not a duration: write",
        "10 s | '10 s' is not a duration: write",
    })
    void refusesAnythingElseNamingTheGrammar(String text, String message) {
        TypeConversionException e = assertThrows(TypeConversionException.class, () -> new DurationConverter().convert(text));
        assertEquals(true, e.getMessage().startsWith(message.trim()), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"500, 500ms", "0, 0ms", "10000, 10s", "90000, 90s", "120000, 2m", "7200000, 2h"})
    void formatsInTheLargestWholeUnit(long millis, String text) {
        assertEquals(text, DurationConverter.format(Duration.ofMillis(millis)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "load --duration 10       | Invalid value for option '--duration': '10' has no unit",
        "load --linger 0          | Invalid value for option '--linger': '0' has no unit",
        "load --retry-timeout 5   | Invalid value for option '--retry-timeout': '5' has no unit",
        "bench --warmup 1         | Invalid value for option '--warmup': '1' has no unit",
        "bench micro --time 1000  | Invalid value for option '--time': '1000' has no unit",
        "cluster restart --dir x --node a --timeout 60 | Invalid value for option '--timeout': '60' has no unit",
    })
    void everyTimeOptionUsesIt(String args, String message) {
        CliRun r = CliRun.of(args.trim().split("\\s+"));
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), r.err());
        assertEquals(true, r.err().contains(message.trim()), r.err());
    }
}
