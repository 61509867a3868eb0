package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import example.QuickStart.Add;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class QuickStartTest {

    @Test
    void theQuickStartExecutesEveryBatchAsInLogOrder() throws Exception {
        List<List<Add>> log = new ArrayList<>();
        for (int b = 0; b < 200; b++) {
            List<Add> batch = new ArrayList<>();
            for (int c = 0; c < 10; c++) {
                batch.add(new Add("counter-" + ((b * 10 + c) % 7), b + c));
            }
            log.add(batch);
        }
        Map<String, Long> expected = new TreeMap<>();
        for (List<Add> batch : log) {
            for (Add a : batch) {
                expected.merge(a.name(), a.amount(), Long::sum);
            }
        }
        assertEquals(expected, new TreeMap<>(QuickStart.run(log)));
    }

    @Test
    void theSchedulerArtifactBringsNeitherNettyNorChronicleNorRatis() {
        // psmr-scheduler is for teams that only want the execution layer: its dependencies stay minimal.
        for (String absent : List.of("io.netty.channel.Channel", "net.openhft.chronicle.map.ChronicleMap",
                "org.apache.ratis.server.RaftServer", "com.google.common.collect.ImmutableList",
                "io.psmr.ordering.OrderingProtocol")) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(absent), absent);
        }
    }
}
