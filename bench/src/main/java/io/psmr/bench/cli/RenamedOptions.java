package io.psmr.bench.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The options psmr renamed so that one thing has one name in every command. Each old spelling stays
 * registered, hidden, wherever its new name exists, and is refused with a usage error naming the new
 * one ("--bits was renamed --bitmap-bits"), instead of picocli's "Unknown option".
 *
 * <p>Used once, on the whole command tree, by {@link PsmrMain#commandLine()}; not thread-safe
 * (it changes the tree as it is being built).
 */
public final class RenamedOptions {

    /** An old spelling, the option that replaced it, and why, if the name alone does not say (else empty). */
    record Rename(String old, String now, boolean takesValue, String why) {
        Rename(String old, String now, boolean takesValue) {
            this(old, now, takesValue, "");
        }
    }

    /** Every rename; the old name is added to each command that has the new one. */
    static final List<Rename> RENAMES = List.of(
            new Rename("--bits", "--bitmap-bits", true),
            new Rename("--batch-size", "--batch", true),
            new Rename("--no-progress", "--quiet", false),
            new Rename("--tick-ms", "--tick", true),
            new Rename("--rounds", "--runs", true),
            // One name, one meaning: cluster start --force deletes a cluster; stop's override deletes nothing.
            new Rename("--force", "--discard-uncheckpointed", false,
                    " (cluster start --force deletes a cluster; cluster stop deletes nothing, and this flag only lets it"
                            + " lose what PBFT replicas executed after their last checkpoint)"));

    private RenamedOptions() {
    }

    /** Registers the old spellings in {@code root} and every command below it. */
    public static void addTo(CommandLine root) {
        CommandSpec spec = root.getCommandSpec();
        for (Rename r : RENAMES) {
            if (spec.findOption(r.now()) != null && spec.findOption(r.old()) == null) {
                spec.addOption(OptionSpec.builder(r.old())
                        .hidden(true)
                        .arity(r.takesValue() ? "0..1" : "0")
                        .type(String.class)
                        // Called only when the old spelling is on the command line (a setter would also
                        // be called with the initial value, on every parse).
                        .parameterConsumer((args, argSpec, command) -> {
                            throw new CommandLine.ParameterException(command.commandLine(),
                                    r.old() + " was renamed " + r.now() + r.why());
                        })
                        .build());
            }
        }
        for (CommandLine sub : root.getSubcommands().values()) {
            addTo(sub);
        }
    }
}
