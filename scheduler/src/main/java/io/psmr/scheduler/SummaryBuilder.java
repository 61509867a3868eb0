package io.psmr.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds the {@link ConflictSummary} of a batch from its commands, under one
 * {@link ConflictDetection}. The client proxy uses it to attach bitmaps to the batches it sends;
 * a replica may use it to rebuild a summary.
 *
 * <p>Not thread-safe: one builder per proxy thread. {@link #build()} hands the summary over and
 * resets the builder for the next batch.
 */
public final class SummaryBuilder {

    private final ConflictDetection detection;
    private final List<Key> keys = new ArrayList<>();
    private BloomBitmap reads;
    private BloomBitmap writes;
    private int commands;

    /** A builder for summaries under {@code detection}. */
    public SummaryBuilder(ConflictDetection detection) {
        this.detection = Objects.requireNonNull(detection, "detection");
        reset();
    }

    /** The settings this builder summarises under. */
    public ConflictDetection detection() {
        return detection;
    }

    /** The summary of {@code commands} in one call. */
    public static ConflictSummary summarize(ConflictDetection detection, List<? extends Command> commands) {
        SummaryBuilder b = new SummaryBuilder(detection);
        for (Command c : commands) {
            b.add(c);
        }
        return b.build();
    }

    /** Adds the keys of one command. */
    public SummaryBuilder add(Command command) {
        int n = command.keyCount();
        for (int i = 0; i < n; i++) {
            byte[] key = Objects.requireNonNull(command.key(i), "command has a null key");
            addKey(key, command.writes(i));
        }
        commands++;
        return this;
    }

    /** Adds one key with its access. */
    public SummaryBuilder addKey(byte[] key, boolean write) {
        switch (detection.mode()) {
            case KEYS_PAIRWISE, KEYS_HASHED -> keys.add(new Key(key));
            case BITMAP -> writes.addDigest(KeyDigest.digest(key));
            case RW_BITMAP -> (write ? writes : reads).addDigest(KeyDigest.digest(key));
        }
        return this;
    }

    /** Number of commands added since the last {@link #build()}. */
    public int commandCount() {
        return commands;
    }

    /** The summary of everything added since the last build; resets the builder. */
    public ConflictSummary build() {
        ConflictSummary s = switch (detection.mode()) {
            case KEYS_PAIRWISE -> new KeyListSummary(keys);
            case KEYS_HASHED -> new KeySetSummary(keys);
            case BITMAP -> new BitmapSummary(optimized(writes));
            case RW_BITMAP -> new RwBitmapSummary(optimized(reads), optimized(writes));
        };
        reset();
        return s;
    }

    private static BloomBitmap optimized(BloomBitmap b) {
        if (b instanceof RoaringBloomBitmap r) {
            r.optimize();
        }
        return b;
    }

    private void reset() {
        keys.clear();
        commands = 0;
        if (detection.mode().usesBitmaps()) {
            writes = BloomBitmap.create(detection.representation(), detection.bitmapBits());
            reads = detection.mode() == ConflictMode.RW_BITMAP
                    ? BloomBitmap.create(detection.representation(), detection.bitmapBits())
                    : null;
        }
    }
}
