package io.psmr.bench.cli;

import java.nio.file.Path;

/** Where a benchmark writes its results: a fresh folder under {@code --out}. */
public final class ResultsDir {

    private ResultsDir() {
    }

    /** {@code parent/name}, or {@code parent/name-2}, {@code -3}, … if it exists. */
    public static Path unique(Path parent, String name) {
        Path dir = parent.resolve(name);
        for (int i = 2; dir.toFile().exists(); i++) {
            dir = parent.resolve(name + "-" + i);
        }
        return dir;
    }
}
