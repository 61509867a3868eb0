package io.psmr.bench.cli;

import java.io.PrintWriter;

import io.psmr.bench.chaos.ChaosCommand;
import io.psmr.bench.clusterbench.ClusterBenchCommand;
import io.psmr.bench.e2e.E2eCommand;
import io.psmr.bench.faults.FaultsCommand;
import io.psmr.bench.load.LoadCommand;
import io.psmr.bench.micro.MicroCommand;
import io.psmr.bench.scheduler.BenchCommand;
import io.psmr.bench.simulate.SimulateCommand;
import io.psmr.bench.ycsb.YcsbCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code psmr} command line: the single entry point that {@code ./psmr} at the repository root
 * runs. It only dispatches to subcommands; each subcommand lives in its own class, and the tree of
 * them is built here ({@link #commandLine()}), so that no command class needs another's.
 *
 * <p>Exit codes, the same in every command: 0 on success, 1 when a command fails, 2 on a usage error
 * (an unknown subcommand, a bad or missing flag), with the error and the usage on standard error;
 * {@code load}, {@code chaos} and {@code ycsb} add 3 (the replicas diverged, or the history is not
 * linearizable: safety), {@code load} and {@code chaos} 4 (no progress within the stall timeout: liveness). Every message on standard error
 * starts with the full command path ({@code psmr cluster start: ...}). Every command answers
 * {@code --help} and {@code --version}.
 */
@Command(name = "psmr",
        mixinStandardHelpOptions = true,
        versionProvider = PsmrVersion.class,
        description = "Parallel state machine replication: batch-and-bitmap scheduling of totally ordered commands.",
        subcommands = {DemoCommand.class, SimulateCommand.class, BenchCommand.class, LoadCommand.class, ClusterCommand.class,
            NodeCommand.class, ChaosCommand.class, YcsbCommand.class},
        synopsisSubcommandLabel = "COMMAND",
        commandListHeading = "%nCommands:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:the command failed",
            "2:usage error (unknown command, bad or missing option)",
            "3:load, chaos, ycsb: the replicas diverged or the history is not linearizable (safety)",
            "4:load, chaos: stalled, no operation completed within the stall timeout (liveness)"})
public final class PsmrMain {

    /** Exit code of a usage error. */
    public static final int EXIT_USAGE = 2;

    /** Exit code of a command that failed while running. */
    public static final int EXIT_FAILURE = 1;

    /** Exit code of {@code load}, {@code chaos} and {@code ycsb} when the replicas diverged or the history is not linearizable. */
    public static final int EXIT_UNSAFE = 3;

    /** Exit code of {@code load} and {@code chaos} when no operation completed within the stall timeout. */
    public static final int EXIT_STALLED = 4;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The configured command line. Output goes to {@code System.out} and {@code System.err} unless
     * the caller sets other writers with {@link CommandLine#setOut} and {@link CommandLine#setErr}.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new PsmrMain());
        cl.getSubcommands().get("bench")
                .addSubcommand(new MicroCommand())
                .addSubcommand(new E2eCommand())
                .addSubcommand(new io.psmr.bench.e2e.MlbftBenchCommand())
                .addSubcommand(new FaultsCommand())
                .addSubcommand(new ClusterBenchCommand());
        RenamedOptions.addTo(cl);
        answerVersionEverywhere(cl, new PsmrVersion());
        cl.setParameterExceptionHandler(PsmrMain::handleUsageError);
        cl.setExecutionExceptionHandler(PsmrMain::handleFailure);
        cl.setExecutionStrategy(PsmrMain::refuseUnmatchedThenRun);
        return cl;
    }

    /**
     * Gives every command of the tree {@code --help} and {@code --version}, the version being psmr's:
     * a subcommand's own {@code mixinStandardHelpOptions} would print an empty version.
     */
    private static void answerVersionEverywhere(CommandLine cl, CommandLine.IVersionProvider version) {
        cl.getCommandSpec().versionProvider(version);
        if (cl.getCommandSpec().findOption("--version") == null) {
            cl.getCommandSpec().mixinStandardHelpOptions(true);
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            answerVersionEverywhere(sub, version);
        }
    }

    /** The full path of {@code cl}'s command, as a message prefix names it: {@code psmr cluster start}. */
    static String path(CommandLine cl) {
        return cl.getCommandSpec().qualifiedName();
    }

    /**
     * picocli lets {@code --help} win over arguments it could not match, so {@code psmr cluster --help}
     * would print the top-level help and exit 0 for a command that does not exist. Refuse them first.
     */
    private static int refuseUnmatchedThenRun(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (!p.unmatched().isEmpty()) {
                throw new CommandLine.UnmatchedArgumentException(p.commandSpec().commandLine(), p.unmatched());
            }
        }
        return new CommandLine.RunLast().execute(parsed);
    }

    /** A usage error: the message, any "did you mean" suggestions, and the usage, all on stderr; exit 2. */
    private static int handleUsageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(cl.getColorScheme().errorText(path(cl) + ": " + ex.getMessage()));
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.println();
        cl.usage(err, cl.getColorScheme());
        err.flush();
        return EXIT_USAGE;
    }

    /** A failure while running: one line on stderr, naming the command's full path (the stack trace only with -Dpsmr.debug); exit 1. */
    private static int handleFailure(Exception ex, CommandLine cl, CommandLine.ParseResult parsed) {
        PrintWriter err = cl.getErr();
        String message = ex.getMessage() == null ? ex.toString() : ex.getMessage();
        err.println(cl.getColorScheme().errorText(path(cl) + ": " + message));
        if (Boolean.getBoolean("psmr.debug")) {
            ex.printStackTrace(err);
        }
        err.flush();
        return EXIT_FAILURE;
    }
}
