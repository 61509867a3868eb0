package io.psmr.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.Replica;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.ordering.OrderingProtocol;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A load whose embedded replicas all stop serving mid-run ends with {@link LoadStalledException}
 * within the stall timeout plus a little, naming the silent replicas, with what completed reported
 * and the cut-off operations in the history as UNKNOWN, instead of waiting for its 60 s duration.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoadStallTest {

    @Test
    void stoppedReplicasEndTheRunWithAStallNamingThem() {
        WorkloadSpec spec = new WorkloadSpec(4, 20, 0.5, 0.1, 2, 16, Duration.ofSeconds(60), 0, 42);
        LoadOptions options = new LoadOptions(2, SchedulerMode.BITMAP_INDEXED, 1, 16, 1, Duration.ZERO, 0, Duration.ofSeconds(5), spec);
        List<OpRecord> history = new CopyOnWriteArrayList<>();
        AtomicReference<EmbeddedCluster> cluster = new AtomicReference<>();
        List<String> notices = new CopyOnWriteArrayList<>();
        RunControls controls = new RunControls(0, false, Duration.ofSeconds(2), StallProbe.NONE, notices::add);
        long begin = System.nanoTime();
        LoadStalledException e = assertThrows(LoadStalledException.class, () -> LoadRun.run(options, LoadTarget.embedded(OrderingProtocol.LOCAL), r -> {
            history.add(r);
            if (history.size() == 40) {
                // Off the client's thread: the replicas stop while the clients keep proposing.
                new Thread(() -> cluster.get().replicas().forEach(Replica::close)).start();
            }
        }, controls, cluster::set, null));
        double seconds = (System.nanoTime() - begin) / 1e9;
        String m = e.getMessage();
        assertTrue(seconds < 2 + 8, "the stall took " + seconds + " s to report: " + m);
        assertTrue(m.startsWith("stalled: no operation completed for "), m);
        assertTrue(m.contains("(stall timeout 2 s); 4 operations outstanding"), m);
        assertTrue(m.contains("cannot hear from: replica 1 (stopped serving), replica 2 (stopped serving)"), m);
        assertNotNull(e.report(), "the report of what completed");
        assertTrue(e.report().digests().isEmpty(), "no digests of a stalled cluster");
        long answered = history.stream().filter(OpRecord::acknowledged).count();
        assertEquals(answered, e.report().result().acknowledged());
        assertTrue(answered >= 40, "answered " + answered);
        List<OpRecord> cut = history.stream().filter(r -> !r.acknowledged()).toList();
        assertEquals(4, cut.size(), "one cut-off operation per client: " + cut);
        cut.forEach(r -> assertEquals("no answer: the load stalled and stopped waiting", r.error(), r.toString()));
    }
}
