package io.psmr.bench.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.psmr.bench.cli.PsmrMain;
import picocli.CommandLine;

/**
 * Checks that the documentation a user reads points only at things that exist: every relative
 * Markdown link in {@code README.md} and {@code docs/**.md} resolves to an existing file (and, with
 * a {@code #fragment}, to a heading of that file, slugged as GitHub does), and every {@code docs/...}
 * path that the help of a {@code ./psmr} command mentions exists. Each broken reference is named
 * with its file and line (or its command).
 */
class DocLinksTest {

    /** An inline link {@code [text](target)} or image {@code ![alt](target)}; the target has no spaces. */
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    /** A reference definition {@code [label]: target}. */
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
    /** An ATX heading. */
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    /** A code span of any number of backticks. */
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    /** A path into docs/ as help text names it. */
    private static final Pattern DOCS_PATH = Pattern.compile("(?<![\\w/.-])docs/[\\w./-]*[\\w](?:#[\\w-]+)?");

    private static final Path ROOT = repositoryRoot();

    @Test
    void everyRelativeLinkInTheDocsResolves() throws IOException {
        List<Path> files = markdownFiles();
        assertTrue(files.size() > 5, "expected README.md and the docs/ guides, found " + files);
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (isFence(line)) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                for (String target : linkTargets(line)) {
                    checked++;
                    String problem = problem(file, target);
                    if (problem != null) {
                        broken.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + target + ": " + problem);
                    }
                }
            }
        }
        assertTrue(checked > 20, "expected the docs to link to each other, found " + checked + " links");
        if (!broken.isEmpty()) {
            fail(broken.size() + " broken link(s) in the docs:\n  " + String.join("\n  ", broken));
        }
    }

    @Test
    void everyDocsPathInTheCommandLineHelpExists() {
        Map<String, String> helpByCommand = new LinkedHashMap<>();
        collectHelp(PsmrMain.commandLine(), helpByCommand);
        assertTrue(helpByCommand.size() > 10, "expected the whole command tree, found " + helpByCommand.keySet());
        List<String> broken = new ArrayList<>();
        for (Map.Entry<String, String> e : helpByCommand.entrySet()) {
            Matcher m = DOCS_PATH.matcher(e.getValue());
            while (m.find()) {
                String target = m.group();
                String problem = problem(ROOT.resolve("README.md"), target);
                if (problem != null) {
                    broken.add("./" + e.getKey() + " --help: " + target + ": " + problem);
                }
            }
        }
        if (!broken.isEmpty()) {
            fail(broken.size() + " broken docs/ path(s) in the command-line help:\n  " + String.join("\n  ", broken));
        }
    }

    @Test
    void slugsFollowGitHub() {
        assertEquals("issue-14-the-scheduler-at-the-physical-limit-2-cores",
                slug("Issue 14: the scheduler at the physical limit (2 cores)"));
        assertEquals("running-a-cluster-of-processes", slug("Running a cluster of processes"));
        assertEquals("pbft-with-cop-pillars-iopsmrorderingpbft", slug("PBFT with COP pillars (`io.psmr.ordering.pbft`)"));
        assertEquals("as-separate-processes", slug("As separate processes"));
        assertEquals("what-a-key_generation-is", slug("What a key_generation is"));
        assertEquals("ratis-at-full-speed--and-after", slug("Ratis at full speed — and after"));
        assertEquals("the-links-text", slug("The [link](x.md)'s text"));
        Set<String> anchors = anchors(List.of("# A", "## A", "```", "# B", "```", "### A"));
        assertEquals(Set.of("a", "a-1", "a-2"), anchors);
    }

    @Test
    void aBrokenLinkIsNamed() throws IOException {
        Path dir = Files.createTempDirectory("doclinks");
        try {
            Path doc = Files.writeString(dir.resolve("a.md"), "# Title\n");
            assertNull(problem(doc, "a.md#title"));
            assertNull(problem(doc, "#title"));
            assertNotNull(problem(doc, "a.md#nothing"));
            assertNotNull(problem(doc, "missing.md"));
            assertEquals(List.of("a.md#x", "b.md", "c.md"),
                    linkTargets("see [a](a.md#x), ![b](b.md \"t\"), `[not](code.md)` and [c](c.md) or [w](https://x.org)"));
        } finally {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.collect(Collectors.toList())) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    /** What is wrong with {@code target} as a link from {@code from}, or null when it resolves. */
    private static String problem(Path from, String target) {
        int hash = target.indexOf('#');
        String pathPart = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved;
        if (pathPart.isEmpty()) {
            resolved = from;
        } else {
            resolved = from.getParent().resolve(decode(pathPart)).normalize();
        }
        if (!Files.exists(resolved)) {
            return "no such file " + displayed(resolved);
        }
        if (fragment == null || fragment.isEmpty()) {
            return null;
        }
        if (Files.isDirectory(resolved) || !resolved.getFileName().toString().endsWith(".md")) {
            return "a #fragment on " + displayed(resolved) + ", which is not a Markdown file";
        }
        Set<String> anchors;
        try {
            anchors = anchors(Files.readAllLines(resolved, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!anchors.contains(fragment.toLowerCase(Locale.ROOT))) {
            return "no heading with anchor #" + fragment + " in " + displayed(resolved);
        }
        return null;
    }

    private static String displayed(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        return abs.startsWith(ROOT) ? ROOT.relativize(abs).toString() : abs.toString();
    }

    /** Percent-decoding of the few escapes a relative link may carry. */
    private static String decode(String path) {
        return path.replace("%20", " ");
    }

    /** The relative link targets of one line outside fenced code, code spans removed. */
    static List<String> linkTargets(String line) {
        String text = CODE_SPAN.matcher(line).replaceAll("");
        List<String> targets = new ArrayList<>();
        Matcher ref = REFERENCE_DEFINITION.matcher(text);
        if (ref.matches()) {
            addIfRelative(ref.group(1), targets);
        }
        Matcher m = INLINE_LINK.matcher(text);
        while (m.find()) {
            addIfRelative(m.group(1), targets);
        }
        return targets;
    }

    private static void addIfRelative(String target, List<String> targets) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*") || target.startsWith("//")) {
            return;
        }
        targets.add(target);
    }

    /** The anchors GitHub gives the headings of a Markdown file, duplicates numbered. */
    static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : lines) {
            if (isFence(line)) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (!h.matches()) {
                continue;
            }
            String base = slug(h.group(2));
            int n = seen.merge(base, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? base : base + "-" + n);
        }
        return anchors;
    }

    /**
     * GitHub's heading slug: link syntax reduced to its text, lower case, every character that is not
     * a letter, a digit, a space, a hyphen or an underscore dropped, and each space made a hyphen.
     */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
        StringBuilder out = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                out.appendCodePoint(c);
            } else if (c == ' ') {
                out.append('-');
            }
        });
        return out.toString();
    }

    private static boolean isFence(String line) {
        String t = line.stripLeading();
        return t.startsWith("```") || t.startsWith("~~~");
    }

    private static void collectHelp(CommandLine cl, Map<String, String> out) {
        String name = cl.getCommandSpec().qualifiedName(" ");
        // Wide enough that no line wraps, so a path is never split across lines.
        cl.setUsageHelpWidth(100_000);
        if (out.putIfAbsent(name, cl.getUsageMessage(CommandLine.Help.Ansi.OFF)) != null) {
            return; // an alias of a command already walked
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            collectHelp(sub, out);
        }
    }

    private static List<Path> markdownFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    /** The repository root: the nearest directory at or above the working directory holding README.md. */
    private static Path repositoryRoot() {
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath().normalize();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
                return p;
            }
        }
        throw new IllegalStateException("no README.md with a docs/ folder at or above " + dir);
    }
}
