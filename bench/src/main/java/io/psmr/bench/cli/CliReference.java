package io.psmr.bench.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * The command-line reference, {@code docs/cli.md}: every command's {@code --help}, generated from
 * the picocli command tree of {@link PsmrMain#commandLine()}, so that it cannot drift from the code
 * (a test compares the checked-in file with {@link #markdown()}). Regenerate it with
 * {@value #REGENERATE}. Stateless; {@link #markdown()} builds its own command tree.
 */
public final class CliReference {

    /** Where the reference lives, from the repository root. */
    public static final String FILE = "docs/cli.md";

    /** The shell command that rewrites {@link #FILE} from the repository root. */
    public static final String REGENERATE =
            "./psmr --version >/dev/null && java -cp bench/target/psmr.jar io.psmr.bench.cli.CliReference " + FILE;

    /** Columns of the help texts: fixed, so that the file does not depend on the terminal. */
    static final int WIDTH = 100;

    private CliReference() {
    }

    /** Writes the reference to {@code args[0]} (default {@value #FILE}, from the working directory). */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args.length > 0 ? args[0] : FILE);
        Files.writeString(file, markdown(), StandardCharsets.UTF_8);
        System.out.println("wrote " + file);
    }

    /** The reference as Markdown: a contents list, then one section per command, depth first. */
    public static String markdown() {
        CommandLine root = PsmrMain.commandLine();
        StringWriter contents = new StringWriter();
        StringWriter sections = new StringWriter();
        walk(root, new PrintWriter(contents), new PrintWriter(sections));
        return "# The psmr command line\n\n"
                + "Every command's `--help`, generated from the code (`io.psmr.bench.cli.CliReference`); do not edit by hand.\n"
                + "Regenerate it from the repository root with `" + REGENERATE + "`.\n\n"
                + "Exit codes are the same in every command: 0 success, 1 the command failed, 2 a usage error (the message,\n"
                + "then the usage, on stderr); `load`, `chaos` and `ycsb` add 3 (the replicas diverged or the history is\n"
                + "not linearizable), `load` and `chaos` 4 (stalled: no progress). Every message on stderr starts with the\n"
                + "command's full"
                + " path, such as `psmr cluster start:`. Every command answers `--help` and `--version`.\n\n"
                + contents + "\n" + sections;
    }

    private static void walk(CommandLine cl, PrintWriter contents, PrintWriter sections) {
        String path = cl.getCommandSpec().qualifiedName();
        int depth = path.split(" ").length - 1;
        contents.println("  ".repeat(depth) + "- [" + path + "](#" + path.replace(' ', '-') + ")");
        cl.getCommandSpec().usageMessage().autoWidth(false).width(WIDTH);
        StringWriter help = new StringWriter();
        cl.usage(new PrintWriter(help), CommandLine.Help.Ansi.OFF);
        sections.println("## " + path);
        sections.println();
        sections.println("```text");
        sections.print(help.toString().stripTrailing().lines().map(String::stripTrailing)
                .reduce((a, b) -> a + "\n" + b).orElse(""));
        sections.println();
        sections.println("```");
        sections.println();
        for (CommandLine sub : cl.getSubcommands().values()) {
            walk(sub, contents, sections);
        }
        contents.flush();
        sections.flush();
    }
}
