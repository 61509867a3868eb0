package io.psmr.bench.micro;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.kvstore.KvCommand;
import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictMode;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Building a batch's summary at the client proxy (hash every key, set its bit or add it to the
 * key set), with {@link SummaryBuilder}: the cost per batch of {@code batch} single-key commands.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class SummaryBuildBenchmark {

    @Param({"KEYS_PAIRWISE", "KEYS_HASHED", "BITMAP", "RW_BITMAP"})
    public ConflictMode mode;

    @Param({"ROARING"})
    public BitmapRepresentation representation;

    @Param({"200"})
    public int batch;

    @Param({"1024000"})
    public int bits;

    private SummaryBuilder builder;
    private List<KvCommand> commands;

    @Setup(Level.Trial)
    public void setUp() {
        ConflictDetection d = switch (mode) {
            case KEYS_PAIRWISE -> ConflictDetection.keysPairwise();
            case KEYS_HASHED -> ConflictDetection.keysHashed();
            case BITMAP -> ConflictDetection.bitmap(bits).withRepresentation(representation);
            case RW_BITMAP -> ConflictDetection.rwBitmap(bits).withRepresentation(representation);
        };
        builder = new SummaryBuilder(d);
        commands = BenchWorkload.build(batch, 0, 64, 42).commands(0);
    }

    @Benchmark
    public ConflictSummary build() {
        for (int i = 0, n = commands.size(); i < n; i++) {
            builder.add(commands.get(i));
        }
        return builder.build();
    }
}
