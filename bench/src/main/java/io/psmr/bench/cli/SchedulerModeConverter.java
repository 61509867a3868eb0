package io.psmr.bench.cli;

import io.psmr.scheduler.SchedulerMode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a {@code --mode}/{@code --modes} value: a {@link SchedulerMode}'s CLI name. An old spelling
 * (such as {@code keys} or {@code bitmap}) is refused with a message naming the new one.
 */
public final class SchedulerModeConverter implements ITypeConverter<SchedulerMode> {

    @Override
    public SchedulerMode convert(String value) {
        try {
            return SchedulerMode.fromCliName(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
