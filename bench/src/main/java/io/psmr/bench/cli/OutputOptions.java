package io.psmr.bench.cli;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The output options, the same in every command that has them: {@code --format} (what goes to
 * standard output) and {@code --quiet} (nothing but results: no progress bar or notes on standard
 * error). A picocli {@code @Mixin}; {@link OutDir} adds {@code --out}. Read on the command's thread.
 */
public final class OutputOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", converter = OutputFormat.Converter.class,
            description = "What goes to stdout: text (tables), csv or json, as the command offers (default: ${DEFAULT-VALUE}).")
    OutputFormat format;

    @Option(names = {"--quiet", "-q"}, description = "No progress bar and no notes on stderr.")
    boolean quiet;

    /**
     * The format, one of {@code offered}.
     *
     * @throws CommandLine.ParameterException naming {@code --format} and what this command offers
     */
    public OutputFormat format(OutputFormat... offered) {
        List<OutputFormat> ok = List.of(offered);
        if (!ok.contains(format)) {
            throw new CommandLine.ParameterException(mixee.commandLine(), "--format must be " + OutputFormat.names(ok)
                    + " for " + mixee.qualifiedName() + ", got '" + format.cliName() + "'");
        }
        return format;
    }

    /** Whether {@code --quiet} was given. */
    public boolean quiet() {
        return quiet;
    }

    /** {@code --out DIR}: the folder that receives a run's results files. A picocli {@code @Mixin}. */
    public static final class OutDir {
        @Option(names = "--out", paramLabel = "DIR", defaultValue = "results",
                description = "Folder that receives the results folder of this run (default: ${DEFAULT-VALUE}).")
        Path out;

        /** The folder. */
        public Path path() {
            return out;
        }
    }
}
