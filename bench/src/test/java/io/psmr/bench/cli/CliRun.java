package io.psmr.bench.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One in-process run of the {@code psmr} command line with its output captured, for tests.
 *
 * @param exitCode what {@code psmr} would exit with
 * @param out      standard output
 * @param err      standard error
 */
public record CliRun(int exitCode, String out, String err) {

    /** Runs {@code psmr args...} through {@link PsmrMain#commandLine()}. */
    public static CliRun of(String... args) {
        CommandLine cl = PsmrMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }
}
