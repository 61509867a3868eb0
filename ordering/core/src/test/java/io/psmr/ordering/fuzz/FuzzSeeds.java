package io.psmr.ordering.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a fuzz test's seed inputs (valid encodings) where Jazzer's regression mode reads them:
 * {@code src/test/resources/<package>/<Class>Inputs/<method>/seed-NN}. Only with
 * {@code -Dpsmr.fuzz.writeSeeds=true}, so that a change of a format can refresh the committed seeds.
 */
public final class FuzzSeeds {

    private FuzzSeeds() {
    }

    /** Writes {@code seeds} for {@code test}'s fuzz test {@code method} if asked to; otherwise does nothing. */
    public static void writeIfAsked(Class<?> test, String method, List<byte[]> seeds) throws IOException {
        if (!Boolean.getBoolean("psmr.fuzz.writeSeeds")) {
            return;
        }
        Path dir = Path.of("src/test/resources", test.getPackageName().replace('.', '/'),
                test.getSimpleName() + "Inputs", method);
        Files.createDirectories(dir);
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(dir.resolve(String.format("seed-%02d", i)), seeds.get(i));
        }
    }
}
