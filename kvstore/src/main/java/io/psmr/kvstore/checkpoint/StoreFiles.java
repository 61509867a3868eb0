package io.psmr.kvstore.checkpoint;

import io.psmr.kvstore.ChronicleKvStore;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreConfig;
import java.nio.file.Path;

/** Opening checkpoint store files (Chronicle Map files in {@link ChronicleKvStore}'s format). */
final class StoreFiles {

    /** Sizing for reopening: Chronicle Map takes the real sizes from the existing file's header. */
    private static final StoreConfig REOPEN = new StoreConfig(StoreConfig.Backend.CHRONICLE, 1, 1, 1, null);

    private StoreFiles() {
    }

    /** Entry count and digest of a store file. */
    record Summary(long entries, long digest) {
    }

    /** Opens an existing store file as a {@link ChronicleKvStore}. */
    static KvStore open(Path file) {
        return REOPEN.persistedTo(file).open();
    }

    /** Opens {@code file}, counts its entries and computes its {@link StateDigest}. */
    static Summary summarize(Path file) {
        try (KvStore s = open(file)) {
            StateDigest d = new StateDigest();
            s.forEach(d::add);
            return new Summary(s.size(), d.value());
        }
    }
}
