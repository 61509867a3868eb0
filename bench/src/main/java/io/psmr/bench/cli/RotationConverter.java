package io.psmr.bench.cli;

import io.psmr.ordering.pbft.LeaderRotation;
import java.util.Locale;
import picocli.CommandLine;

/** {@code --leader-rotation rotating|fixed}. */
public final class RotationConverter implements CommandLine.ITypeConverter<LeaderRotation> {
    /** The rotation named {@code value}, as {@code LeaderRotation}'s constant in lower case. */
    @Override
    public LeaderRotation convert(String value) {
        for (LeaderRotation r : LeaderRotation.values()) {
            if (r.name().toLowerCase(Locale.ROOT).equals(value)) {
                return r;
            }
        }
        throw new CommandLine.TypeConversionException("--leader-rotation must be rotating or fixed, got '" + value + "'");
    }
}
