package io.psmr.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The checked-in command-line reference ({@value CliReference#FILE}) is what the code generates, and every
 * {@code docs/*.md} that a help text names exists.
 */
class CliReferenceTest {

    /** The repository root: the bench module's parent (Maven runs tests in the module's directory). */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void theCheckedInReferenceIsCurrent() throws IOException {
        Path file = ROOT.resolve(CliReference.FILE);
        assertTrue(Files.exists(file), file + " is missing; generate it from the repository root with: " + CliReference.REGENERATE);
        String generated = CliReference.markdown();
        String checkedIn = Files.readString(file, StandardCharsets.UTF_8);
        assertEquals(generated, checkedIn, CliReference.FILE + " differs from the command line the code builds; regenerate it "
                + "from the repository root with: " + CliReference.REGENERATE);
    }

    @Test
    void everyCommandHasASection() {
        String reference = CliReference.markdown();
        for (String path : List.of("psmr", "psmr demo", "psmr bench e2e", "psmr bench micro", "psmr cluster start",
                "psmr cluster status", "psmr cluster rotate-keys", "psmr node", "psmr chaos", "psmr ycsb")) {
            assertTrue(reference.contains("\n## " + path + "\n"), "no section for " + path);
        }
    }

    @Test
    void everyDocTheHelpNamesExists() {
        Matcher m = Pattern.compile("docs/[A-Za-z0-9._-]+\\.md").matcher(CliReference.markdown());
        List<String> missing = new ArrayList<>();
        int named = 0;
        while (m.find()) {
            named++;
            if (!m.group().equals(CliReference.FILE) && !Files.exists(ROOT.resolve(m.group()))) {
                missing.add(m.group());
            }
        }
        assertTrue(named > 5, "the help texts name " + named + " docs");
        assertEquals(List.of(), missing, "help texts name docs that do not exist");
    }
}
