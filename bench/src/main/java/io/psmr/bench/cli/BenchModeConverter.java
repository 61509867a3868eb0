package io.psmr.bench.cli;

import io.psmr.bench.scheduler.BenchMode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a {@code psmr bench --modes} value: a {@link io.psmr.scheduler.SchedulerMode}'s CLI name or a
 * COS baseline's ({@code cos-coarse}, {@code cos-lockfree}); see {@link BenchMode#fromCliName}.
 */
public final class BenchModeConverter implements ITypeConverter<BenchMode> {

    @Override
    public BenchMode convert(String value) {
        try {
            return BenchMode.fromCliName(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
