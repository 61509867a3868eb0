package io.psmr.bench.cli;

import io.psmr.ordering.pbft.LeaderSelection;
import picocli.CommandLine;

/** {@code --leader-selection blacklist|all}. */
public final class LeaderSelectionConverter implements CommandLine.ITypeConverter<LeaderSelection> {
    /** The selection named {@code value} ({@link LeaderSelection#cliName()}). */
    @Override
    public LeaderSelection convert(String value) {
        for (LeaderSelection s : LeaderSelection.values()) {
            if (s.cliName().equals(value)) {
                return s;
            }
        }
        throw new CommandLine.TypeConversionException("--leader-selection must be blacklist or all, got '" + value + "'");
    }
}
