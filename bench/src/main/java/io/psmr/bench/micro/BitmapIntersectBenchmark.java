package io.psmr.bench.micro;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.BloomBitmap;
import io.psmr.scheduler.KeyDigest;
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
 * One conflict test of two batch bitmaps (Algorithm 1's {@code bitmapConflict}): the bitmaps of two
 * batches of {@code batch} distinct keys that do not intersect, the case that must look at
 * everything before answering, per representation and bitmap size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class BitmapIntersectBenchmark {

    @Param({"ROARING", "DENSE"})
    public BitmapRepresentation representation;

    @Param({"102400", "1024000"})
    public int bits;

    @Param({"200"})
    public int batch;

    private BloomBitmap a;
    private BloomBitmap b;

    @Setup(Level.Trial)
    public void setUp() {
        int key = 0;
        do {
            a = BloomBitmap.create(representation, bits);
            b = BloomBitmap.create(representation, bits);
            for (int i = 0; i < batch; i++) {
                a.addDigest(KeyDigest.digest(BenchWorkload.key(key++)));
                b.addDigest(KeyDigest.digest(BenchWorkload.key(key++)));
            }
        } while (a.intersects(b));
    }

    @Benchmark
    public boolean intersects() {
        return a.intersects(b);
    }
}
