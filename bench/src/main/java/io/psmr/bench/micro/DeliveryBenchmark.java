package io.psmr.bench.micro;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.kvstore.KvCommand;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictMode;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.DependencyGraph;
import io.psmr.scheduler.GraphKind;
import io.psmr.scheduler.PendingBatch;
import java.util.ArrayList;
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
 * The delivery thread's cost per batch in {@link GraphKind#SPLIT_INDEXED}, in steady state: the
 * graph holds {@code depth} pending batches; each operation removes the oldest (as a worker would:
 * {@code tryTake} and {@code remove}, a lock and a queue poll, a small share of the time) and
 * inserts the next batch, whose insert forgets the removed batch's accesses, then probes and records
 * its own. So every insert forgets exactly one batch, as at saturation.
 *
 * <p>Batches are of {@code batch} single-key commands; {@code conflict}% of them also write one hot
 * key (the scheduler benchmark's workload), so those chain behind each other. The oldest pending
 * batch never has a pending predecessor, so it is always free to take.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class DeliveryBenchmark {

    @Param({"SPLIT_INDEXED"})
    public GraphKind graph;

    @Param({"BITMAP", "RW_BITMAP"})
    public ConflictMode mode;

    @Param({"0", "20"})
    public int conflict;

    @Param({"64"})
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

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        ConflictDetection detection = GraphBenchmark.detection(mode, bits);
        // The workload's cycle (1,024 batches) is far longer than the graph, so the bits of the
        // pending batches are as random as a live stream's.
        BenchWorkload w = BenchWorkload.build(batch, conflict, Math.max(depth, 64), 42);
        commands = new ArrayList<>();
        for (int i = 0; i < w.cycleLength(); i++) {
            commands.add(w.commands(i));
        }
        summaries = w.summaries(detection);
        // One slot of room: the insert after each removal never blocks.
        g = graph.create(detection, depth + 1);
        for (int i = 0; i < depth; i++) {
            g.insert(nextBatch());
        }
    }

    private Batch<KvCommand> nextBatch() {
        int i = next;
        next = next + 1 == commands.size() ? 0 : next + 1;
        return new Batch<>(++instance, commands.get(i), summaries[i]);
    }

    /** Remove the oldest pending batch, then insert one: the insert forgets it, probes and records. */
    @Benchmark
    public PendingBatch<KvCommand> removeOldestInsert() throws InterruptedException {
        PendingBatch<KvCommand> p = g.tryTake();
        g.remove(p);
        g.insert(nextBatch());
        return p;
    }
}
