package io.psmr.bench.scheduler;

import io.psmr.bench.scheduler.service.BenchService;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.KeyDigest;
import io.psmr.scheduler.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The {@code partitioned} reference of {@code psmr bench}: the cell's command stream split by key into
 * W independent threads, each executing only the commands of its keys, in cycle order, through the same
 * service, with no scheduler, no graph and no delivery thread. Nothing orders one thread's commands
 * against another's, so this is the most the service allows W threads on this machine: the ceiling
 * that a scheduler's {@code ceiling_fraction} divides by. A key belongs to partition
 * {@code floorMod(KeyDigest.digest(key), W)}; a command whose keys fall in two partitions could not
 * run on one thread alone and is left out ({@link Split#leftOut()}, reported).
 *
 * <p><b>What is timed.</b> As the other cells: the first tenth of the run is ramp; the window runs from
 * there to the duration (or past it until a command completed in the window). Throughput is the
 * commands all threads completed in the window per second. No latency is recorded: there is no
 * delivery to measure it from.
 *
 * <p><b>Threads.</b> {@link #run} is called by the benchmark's thread, which starts W threads, parks
 * through the window and joins them before returning. Each thread publishes its count with a release
 * store every {@link #PUBLISH} commands; the benchmark's thread reads the counts with acquire loads.
 */
final class PartitionedRun {

    private PartitionedRun() {
    }

    /**
     * A cycle split by key.
     *
     * @param streams  per partition, its commands in cycle order
     * @param leftOut  commands whose keys fall in two or more partitions, in no stream
     * @param total    commands in the cycle
     */
    record Split<C extends Command>(List<List<C>> streams, long leftOut, long total) {
    }

    /** The partition of {@code key} among {@code partitions}. */
    static int partitionOf(byte[] key, int partitions) {
        return (int) Math.floorMod(KeyDigest.digest(key), (long) partitions);
    }

    /** Splits the cycle {@code batches} over {@code partitions} threads by key. */
    static <C extends Command> Split<C> split(List<List<C>> batches, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
        }
        List<List<C>> streams = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            streams.add(new ArrayList<>());
        }
        long leftOut = 0;
        long total = 0;
        for (List<C> batch : batches) {
            for (C command : batch) {
                total++;
                int p = partition(command, partitions);
                if (p < 0) {
                    leftOut++;
                } else {
                    streams.get(p).add(command);
                }
            }
        }
        List<List<C>> frozen = new ArrayList<>(partitions);
        streams.forEach(s -> frozen.add(List.copyOf(s)));
        return new Split<>(List.copyOf(frozen), leftOut, total);
    }

    /** The one partition of every key of {@code command}; -1 if they span two; 0 for a command with no keys. */
    private static int partition(Command command, int partitions) {
        int p = command.keyCount() == 0 ? 0 : partitionOf(command.key(0), partitions);
        for (int i = 1; i < command.keyCount(); i++) {
            if (partitionOf(command.key(i), partitions) != p) {
                return -1;
            }
        }
        return p;
    }

    /**
     * One timed run of a partitioned cell: {@code split}'s streams, one thread each, through
     * {@code bench}'s service, for {@code durationNanos}.
     *
     * @throws IllegalStateException naming the cell if a thread failed, or if no command completed
     *                               ({@link SchedulerBench#windowDone})
     */
    static <C extends Command, R> RunSample run(Cell c, Split<C> split, BenchService<C, R> bench, long durationNanos)
            throws InterruptedException {
        int n = split.streams().size();
        Partition<C, R>[] threads = partitions(c, split, bench);
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        for (Partition<C, R> t : threads) {
            t.latches(ready, go);
            t.start();
        }
        long c0;
        long c1;
        long t0;
        long t1;
        try {
            ready.await();
            long start = System.nanoTime();
            go.countDown();
            parkUntil(start + durationNanos / 10);
            c0 = completed(threads);
            t0 = System.nanoTime();
            parkUntil(start + durationNanos);
            while (true) {
                c1 = completed(threads);
                t1 = System.nanoTime();
                failure(c, threads);
                if (SchedulerBench.windowDone(c1, c0, t1 - start, durationNanos, c)) {
                    break;
                }
                LockSupport.parkNanos(1_000_000);
            }
        } finally {
            for (Partition<C, R> t : threads) {
                t.stopping = true;
            }
            go.countDown();
            for (Partition<C, R> t : threads) {
                t.join();
            }
        }
        failure(c, threads);
        return new RunSample((c1 - c0) * 1e9 / (t1 - t0), Double.NaN, new Histogram(3));
    }

    @SuppressWarnings("unchecked")
    private static <C extends Command, R> Partition<C, R>[] partitions(Cell c, Split<C> split, BenchService<C, R> bench) {
        int n = split.streams().size();
        Partition<C, R>[] threads = new Partition[n];
        for (int p = 0; p < n; p++) {
            threads[p] = new Partition<>(split.streams().get(p), bench, "psmr-bench-partition-" + p);
        }
        if (split.total() == split.leftOut()) {
            throw new IllegalStateException(c.describe() + ": every command touches keys of two partitions");
        }
        return threads;
    }

    private static void parkUntil(long deadline) {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private static long completed(Partition<?, ?>[] threads) {
        long sum = 0;
        for (Partition<?, ?> t : threads) {
            sum += t.completed.getAcquire();
        }
        return sum;
    }

    private static void failure(Cell c, Partition<?, ?>[] threads) {
        for (Partition<?, ?> t : threads) {
            Throwable f = t.failure;
            if (f != null) {
                throw new IllegalStateException(c.describe() + ": " + t.getName() + " failed: " + f, f);
            }
        }
    }

    /**
     * Commands a thread executes per call of its execute loop, and between two publications of its count
     * (a window counts to within this many per thread).
     */
    static final int PUBLISH = 64;

    /** One partition's thread: its stream, in a cycle, until stopped. */
    private static final class Partition<C extends Command, R> extends Thread {
        private final List<C> stream;
        private final BenchService<C, R> bench;
        final AtomicLong completed = new AtomicLong();
        volatile boolean stopping;
        volatile Throwable failure;
        /** Keeps the results observably used. */
        int sink;
        private CountDownLatch ready;
        private CountDownLatch go;

        Partition(List<C> stream, BenchService<C, R> bench, String name) {
            super(name);
            this.stream = stream;
            this.bench = bench;
            setDaemon(true);
        }

        void latches(CountDownLatch ready, CountDownLatch go) {
            this.ready = ready;
            this.go = go;
        }

        @Override
        public void run() {
            int size = stream.size();
            long done = 0;
            try {
                ready.countDown();
                go.await();
                // An empty stream (all its keys elsewhere) has nothing to run.
                for (int i = 0; size > 0 && !stopping; ) {
                    int n = Math.min(PUBLISH, size - i);
                    sink += execute(i, n);
                    // Published every PUBLISH commands at most: the threads' counters may share a cache
                    // line, and a store per command would move it between the cores.
                    done += n;
                    completed.setRelease(done);
                    i += n;
                    if (i == size) {
                        i = 0;
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        /**
         * Executes {@code n} commands of the stream from {@code from}. A method of its own, called once per
         * chunk, so that the JIT compiles it whole, as the sequential loop's service calls are, rather than
         * only through on-stack replacement of a loop that a fresh thread enters once per run.
         */
        private int execute(int from, int n) throws Exception {
            Service<C, R> service = bench.service();
            int s = 0;
            for (int i = from, end = from + n; i < end; i++) {
                s += bench.observe(service.execute(stream.get(i)));
            }
            return s;
        }
    }
}
