package io.psmr.bench.ycsb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import site.ycsb.Client;
import site.ycsb.ClientThread;
import site.ycsb.DB;
import site.ycsb.DBWrapper;
import site.ycsb.Utils;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;

/**
 * One phase of YCSB's {@code Client} (load: {@code dotransactions=false}; run: true) inside this
 * process, without {@code Client.main}, which parses its own flags and calls {@code System.exit}.
 * It does what 0.17.0's {@code Client.main} does with its private helpers: initialises the
 * workload, makes one {@link ClientThread} per {@code threadcount} each with its own
 * {@link DBWrapper}-measured DB and its share of the operations, runs them, cleans the workload up
 * and exports the measurements with YCSB's {@link TextMeasurementsExporter}, headed by the same
 * {@code [OVERALL]} and GC lines. {@code target} throttling is passed on to the client threads;
 * {@code maxexecutiontime}, the status thread and other exporters are not supported
 * ({@link YcsbCommand} refuses them).
 *
 * <p>YCSB keeps its measurements in a process-wide singleton; each phase starts it afresh (by
 * reflection on its private field: YCSB has no reset), so phases must not overlap. Call from one
 * thread at a time.
 */
public final class YcsbPhase {

    private static final Object PHASES = new Object();

    private YcsbPhase() {
    }

    /** What a phase did: operations done, wall time, and YCSB's text output. */
    public record Result(int operations, long runtimeMillis, String output) {
    }

    /**
     * Runs the phase.
     *
     * @param props        YCSB properties (workload, recordcount, operationcount, threadcount, ...)
     * @param transactions false for the load phase (inserts), true for the run phase
     * @param dbs          makes one DB per client thread
     * @throws WorkloadException if the workload refuses its properties
     */
    public static Result run(Properties props, boolean transactions, Supplier<DB> dbs)
            throws WorkloadException, InterruptedException {
        synchronized (PHASES) {
            Properties p = new Properties();
            p.putAll(props);
            p.setProperty(Client.DO_TRANSACTIONS_PROPERTY, Boolean.toString(transactions));
            resetMeasurements(p);
            Workload workload = newWorkload(p);
            Tracer tracer = new Tracer.Builder("YCSB " + workload.getClass().getSimpleName())
                    .conf(HTraceConfiguration.fromMap(Map.of())).build();
            workload.init(p);
            int threads = Integer.parseInt(p.getProperty(Client.THREAD_COUNT_PROPERTY, "1"));
            int ops = transactions ? Integer.parseInt(p.getProperty(Client.OPERATION_COUNT_PROPERTY, "0"))
                    : Integer.parseInt(p.getProperty(Client.INSERT_COUNT_PROPERTY,
                            p.getProperty(Client.RECORD_COUNT_PROPERTY, Client.DEFAULT_RECORD_COUNT)));
            if (threads > ops && ops > 0) {
                threads = ops;
            }
            int target = Integer.parseInt(p.getProperty(Client.TARGET_PROPERTY, "0"));
            double perThreadPerMs = target > 0 ? target / (double) threads / 1000.0 : -1;
            CountDownLatch done = new CountDownLatch(threads);
            List<ClientThread> clients = new ArrayList<>();
            for (int id = 0; id < threads; id++) {
                DB db = dbs.get();
                db.setProperties(p);
                int share = ops / threads + (id < ops % threads ? 1 : 0);
                ClientThread t = new ClientThread(new DBWrapper(db, tracer), transactions, workload, p, share, perThreadPerMs, done);
                t.setThreadId(id);
                t.setThreadCount(threads);
                clients.add(t);
            }
            List<Thread> running = new ArrayList<>();
            long start = System.currentTimeMillis();
            for (int i = 0; i < clients.size(); i++) {
                Thread t = new Thread(clients.get(i), "ycsb-client-" + i);
                t.start();
                running.add(t);
            }
            int opsDone = 0;
            for (int i = 0; i < running.size(); i++) {
                running.get(i).join();
                opsDone += clients.get(i).getOpsDone();
            }
            long runtime = System.currentTimeMillis() - start;
            workload.cleanup();
            return new Result(opsDone, runtime, export(opsDone, runtime));
        }
    }

    /** YCSB's text output of the phase, as {@code Client.exportMeasurements} writes it. */
    private static String export(int opcount, long runtime) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            TextMeasurementsExporter exporter = new TextMeasurementsExporter(bytes);
            exporter.write("OVERALL", "RunTime(ms)", runtime);
            exporter.write("OVERALL", "Throughput(ops/sec)", 1000.0 * opcount / runtime);
            long gcCount = 0;
            long gcTime = 0;
            for (Map.Entry<String, Long[]> e : Utils.getGCStatst().entrySet()) {
                exporter.write("TOTAL_GCS_" + e.getKey(), "Count", e.getValue()[0]);
                exporter.write("TOTAL_GC_TIME_" + e.getKey(), "Time(ms)", e.getValue()[1]);
                exporter.write("TOTAL_GC_TIME_%_" + e.getKey(), "Time(%)", (double) e.getValue()[1] / runtime * 100);
                gcCount += e.getValue()[0];
                gcTime += e.getValue()[1];
            }
            exporter.write("TOTAL_GCs", "Count", gcCount);
            exporter.write("TOTAL_GC_TIME", "Time(ms)", gcTime);
            exporter.write("TOTAL_GC_TIME_%", "Time(%)", (double) gcTime / runtime * 100);
            Measurements.getMeasurements().exportMeasurements(exporter);
            exporter.close();
        } catch (IOException e) {
            throw new IllegalStateException("cannot write YCSB's measurements to memory: " + e.getMessage(), e);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static Workload newWorkload(Properties p) throws WorkloadException {
        String name = p.getProperty(Client.WORKLOAD_PROPERTY);
        if (name == null) {
            throw new WorkloadException("no workload class: set -p workload=CLASS");
        }
        try {
            return (Workload) Class.forName(name).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new WorkloadException("cannot make workload " + name + ": " + e);
        }
    }

    /** Gives the next {@link Measurements#getMeasurements()} a fresh instance with {@code p}. */
    private static void resetMeasurements(Properties p) {
        Measurements.setProperties(p);
        try {
            Field singleton = Measurements.class.getDeclaredField("singleton");
            singleton.setAccessible(true);
            singleton.set(null, null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reset YCSB's measurements (is site.ycsb:core 0.17.0 on the class path?): " + e, e);
        }
    }
}
