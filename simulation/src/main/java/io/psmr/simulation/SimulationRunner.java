package io.psmr.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs cells on a fixed pool of threads, deterministically.
 *
 * <p>Each cell is cut into chunks of {@link #CHUNK_ITERATIONS} iterations. Each chunk starts from
 * an empty list, fills it with g batches that are not counted, then counts its iterations, with
 * the random stream of {@link Seeds#chunkSeed}. The cut depends only on the iteration count, so
 * the counts depend only on the seed and the parameters: any thread count, any interleaving,
 * gives the same sums. Chunking is also what spreads a single long run over the cores.
 */
public final class SimulationRunner {

    /** Iterations per chunk: small enough to balance 12 cells over a few cores, large enough that the uncounted fill of g batches is noise. */
    public static final long CHUNK_ITERATIONS = 1L << 16;

    private final int threads;

    /** A runner on {@code threads >= 1} threads. */
    public SimulationRunner(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("thread count must be >= 1, got " + threads);
        }
        this.threads = threads;
    }

    /** The number of worker threads. */
    public int threads() {
        return threads;
    }

    /**
     * Simulates every cell; the result at index i is that of {@code cells.get(i)}.
     *
     * @param seed    the global seed
     * @param display shown while the workers run
     */
    public List<ConflictCounts> run(List<SimulationConfig> cells, long seed, ProgressDisplay display) {
        AtomicLong done = new AtomicLong();
        long total = 0;
        List<List<CompletableFuture<ConflictCounts>>> perCell = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads, daemonThreads());
        // One reusable list index per worker thread; reallocated only when the cell shape changes.
        ThreadLocal<WindowSimulator[]> workspace = ThreadLocal.withInitial(() -> new WindowSimulator[1]);
        try {
            for (SimulationConfig cell : cells) {
                long cellSeed = Seeds.cellSeed(seed, cell);
                List<CompletableFuture<ConflictCounts>> chunks = new ArrayList<>();
                for (long start = 0, index = 0; start < cell.iterations(); start += CHUNK_ITERATIONS, index++) {
                    long n = Math.min(CHUNK_ITERATIONS, cell.iterations() - start);
                    long chunkSeed = Seeds.chunkSeed(cellSeed, index);
                    chunks.add(CompletableFuture.supplyAsync(
                            () -> simulatorFor(workspace, cell).run(cell, chunkSeed, n, done), pool));
                }
                total += cell.iterations();
                perCell.add(chunks);
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(
                    perCell.stream().flatMap(List::stream).toArray(CompletableFuture[]::new));
            display.follow(done, total, all);
            List<ConflictCounts> results = new ArrayList<>(cells.size());
            for (List<CompletableFuture<ConflictCounts>> chunks : perCell) {
                ConflictCounts sum = ConflictCounts.ZERO;
                for (CompletableFuture<ConflictCounts> f : chunks) {
                    sum = sum.plus(join(f));
                }
                results.add(sum);
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Simulates one cell. */
    public ConflictCounts run(SimulationConfig cell, long seed, ProgressDisplay display) {
        return run(List.of(cell), seed, display).get(0);
    }

    private static WindowSimulator simulatorFor(ThreadLocal<WindowSimulator[]> workspace, SimulationConfig c) {
        WindowSimulator[] holder = workspace.get();
        if (holder[0] == null || !holder[0].fits(c)) {
            holder[0] = null; // let the old arrays go before allocating new ones
            holder[0] = new WindowSimulator(c.bitmapBits(), c.batchSize(), c.graphSize(), c.partitions());
        }
        return holder[0];
    }

    private static ConflictCounts join(CompletableFuture<ConflictCounts> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "psmr-simulate-" + n.incrementAndGet());
            // Daemon, so an interrupted command never keeps the JVM alive.
            t.setDaemon(true);
            return t;
        };
    }
}
