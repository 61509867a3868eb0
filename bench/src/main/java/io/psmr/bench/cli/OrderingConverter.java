package io.psmr.bench.cli;

import io.psmr.ordering.OrderingProtocol;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads an {@code --ordering} value: an {@link OrderingProtocol}'s CLI name, refusing others by name. */
public final class OrderingConverter implements ITypeConverter<OrderingProtocol> {

    @Override
    public OrderingProtocol convert(String value) {
        try {
            return OrderingProtocol.fromCliName(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
