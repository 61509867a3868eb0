package io.psmr.bench.cli;

import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** What a command prints on standard output ({@code --format}); each command offers some of them. */
public enum OutputFormat {
    /** Tables for people. */
    TEXT,
    /** CSV, header first. */
    CSV,
    /** One JSON object. */
    JSON;

    /** The name on the command line. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Reads {@code --format}: a name in lower case; {@code table}, psmr's old name of text, is refused naming it. */
    public static final class Converter implements ITypeConverter<OutputFormat> {
        @Override
        public OutputFormat convert(String value) {
            for (OutputFormat f : values()) {
                if (f.cliName().equals(value)) {
                    return f;
                }
            }
            if ("table".equalsIgnoreCase(value)) {
                throw new TypeConversionException("format 'table' was renamed text");
            }
            throw new TypeConversionException("expected text, csv or json, got '" + value + "'");
        }
    }

    /** The names of {@code formats}, as "a, b or c". */
    static String names(List<OutputFormat> formats) {
        List<String> n = formats.stream().map(OutputFormat::cliName).toList();
        return n.size() == 1 ? n.get(0)
                : String.join(", ", n.subList(0, n.size() - 1)) + " or " + n.get(n.size() - 1);
    }
}
