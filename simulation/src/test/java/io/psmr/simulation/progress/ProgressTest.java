package io.psmr.simulation.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.simulation.ConsoleProgress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    private String written() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static void assertPlain(String text) {
        assertFalse(text.contains("\r"), "carriage return in redirected output: " + text);
        assertFalse(text.contains("\u001b"), "ANSI escape in redirected output: " + text);
    }

    @Test
    void redirectedOutputIsPlainLinesAtMostEveryTenSecondsAndAtTheEnd() {
        try (Progress p = Progress.create("bench e2e", 40, "runs", false, false, out, clock::get)) {
            for (int i = 0; i < 40; i++) {
                clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1625)); // 40 runs of 1.625 s: 65 s
                p.step();
            }
        }
        String text = written();
        assertPlain(text);
        assertEquals(List.of(
                "bench e2e progress: 7/40 runs, 11s elapsed",
                "bench e2e progress: 14/40 runs, 22s elapsed",
                "bench e2e progress: 21/40 runs, 34s elapsed",
                "bench e2e progress: 28/40 runs, 45s elapsed",
                "bench e2e progress: 35/40 runs, 56s elapsed",
                "bench e2e progress: 40/40 runs, 1m05s elapsed"), text.lines().toList());
    }

    @Test
    void aShortRedirectedTaskPrintsOnlyTheFinalLine() {
        Progress p = Progress.create("bench", 3, "runs", false, false, out, clock::get);
        p.step();
        p.step();
        p.step();
        p.close();
        p.close(); // idempotent
        assertEquals("bench progress: 3/3 runs, 0s elapsed" + System.lineSeparator(), written());
    }

    @Test
    void quietPrintsNothingOnATerminalOrNot() {
        for (boolean terminal : new boolean[] {true, false}) {
            try (Progress p = Progress.create("bench", 2, "runs", true, terminal, out, clock::get)) {
                clock.addAndGet(TimeUnit.MINUTES.toNanos(5));
                p.step();
                p.step();
            }
        }
        assertEquals("", written());
    }

    @Test
    void aTerminalGetsTheRedrawnBar() {
        try (Progress p = Progress.create("bench", 2, "runs", false, true, out, clock::get)) {
            p.step();
            p.step();
        }
        String text = written();
        assertTrue(text.contains("\r") && text.contains("bench") && text.contains("2/2"), "no bar drawn: " + text);
    }

    @Test
    void elapsedIsReadable() {
        assertEquals("0s", Progress.elapsed(-5));
        assertEquals("59s", Progress.elapsed(TimeUnit.SECONDS.toNanos(59)));
        assertEquals("1m05s", Progress.elapsed(TimeUnit.SECONDS.toNanos(65)));
        assertEquals("2h03m07s", Progress.elapsed(TimeUnit.SECONDS.toNanos(2 * 3600 + 3 * 60 + 7)));
    }

    @Test
    void consoleProgressOfARedirectedSimulationWritesPlainLines() {
        AtomicLong done = new AtomicLong(100);
        // The run "finishes" just after the display appears, so that it shows at least its last line.
        CompletableFuture<Void> completion = new CompletableFuture<Void>()
                .completeOnTimeout(null, ConsoleProgress.DELAY_MS + 300, TimeUnit.MILLISECONDS);
        new ConsoleProgress(out, false, System::nanoTime).follow(done, 100, completion);
        String text = written();
        assertPlain(text);
        assertTrue(text.matches("simulate progress: 100/100 it, \\d+s elapsed\\R"), "unexpected output: " + text);
    }
}
