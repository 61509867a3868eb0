package io.psmr.bench.micro;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.kvstore.KvCommand;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictMode;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.DependencyGraph;
import io.psmr.scheduler.GraphKind;
import io.psmr.scheduler.PendingBatch;
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
 * One batch through a dependency graph, single-threaded: insert it while {@code depth} other
 * batches are pending, take the oldest free batch, remove it. The graph thus stays at
 * {@code depth} pending batches. Batches share no key (bitmaps may still collide), so this is the
 * scheduling cost per batch of the conflict-free Fig. 4 workload, without thread handoffs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class GraphBenchmark {

    @Param({"MONITOR", "INDEXED"})
    public GraphKind graph;

    @Param({"KEYS_PAIRWISE", "KEYS_HASHED", "BITMAP", "RW_BITMAP"})
    public ConflictMode mode;

    @Param({"1", "8", "64"})
    public int depth;

    @Param({"200"})
    public int batch;

    @Param({"1024000"})
    public int bits;

    private DependencyGraph<KvCommand> g;
    private List<List<KvCommand>> commands;
    private ConflictSummary[] summaries;
    private long instance;
    private int next;

    /** The detection a graph benchmark's {@code mode} parameter names: bitmaps are Roaring, of {@code bits} bits. */
    static ConflictDetection detection(ConflictMode mode, int bits) {
        return switch (mode) {
            case KEYS_PAIRWISE -> ConflictDetection.keysPairwise();
            case KEYS_HASHED -> ConflictDetection.keysHashed();
            case BITMAP -> ConflictDetection.bitmap(bits).withRepresentation(BitmapRepresentation.ROARING);
            case RW_BITMAP -> ConflictDetection.rwBitmap(bits);
        };
    }

    @Setup(Level.Trial)
    public void setUp() {
        ConflictDetection detection = detection(mode, bits);
        BenchWorkload w = BenchWorkload.build(batch, 0, Math.max(depth, 64), 42);
        commands = new java.util.ArrayList<>();
        for (int i = 0; i < w.cycleLength(); i++) {
            commands.add(w.commands(i));
        }
        summaries = w.summaries(detection);
        g = graph.create(detection, depth + 1);
        try {
            for (int i = 0; i < depth; i++) {
                g.insert(nextBatch());
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private Batch<KvCommand> nextBatch() {
        int i = next;
        next = next + 1 == commands.size() ? 0 : next + 1;
        return new Batch<>(++instance, commands.get(i), summaries[i]);
    }

    /** Insert with {@code depth} pending, take the oldest free batch, remove it. */
    @Benchmark
    public PendingBatch<KvCommand> insertTakeRemove() throws InterruptedException {
        g.insert(nextBatch());
        PendingBatch<KvCommand> p = g.tryTake();
        g.remove(p);
        return p;
    }
}
