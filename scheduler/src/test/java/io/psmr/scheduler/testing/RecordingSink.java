package io.psmr.scheduler.testing;

import io.psmr.scheduler.Batch;
import io.psmr.scheduler.CommandError;
import io.psmr.scheduler.ResultSink;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Records every outcome by (instance, index), and the order in which batches complete. */
public final class RecordingSink implements ResultSink<TestCommand, Long> {

    private final ConcurrentHashMap<String, String> outcomes = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> completed = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> duplicates = new ConcurrentLinkedQueue<>();

    @Override
    public void onResult(long instance, int index, TestCommand command, Long result) {
        put(instance, index, "ok:" + result);
    }

    @Override
    public void onError(long instance, int index, TestCommand command, CommandError error) {
        put(instance, index, error.kind() + ":" + error.message());
    }

    @Override
    public void onBatchComplete(Batch<TestCommand> batch) {
        completed.add(batch.instance());
    }

    private void put(long instance, int index, String outcome) {
        String key = String.format("%08d/%04d", instance, index);
        if (outcomes.putIfAbsent(key, outcome) != null) {
            duplicates.add(key);
        }
    }

    /** Outcomes keyed "instance/index", sorted. */
    public Map<String, String> outcomes() {
        return new TreeMap<>(outcomes);
    }

    public String outcome(long instance, int index) {
        return outcomes.get(String.format("%08d/%04d", instance, index));
    }

    /** Instances in the order their batches completed. */
    public List<Long> completionOrder() {
        return List.copyOf(completed);
    }

    /** Outcomes reported more than once. */
    public List<String> duplicates() {
        return List.copyOf(duplicates);
    }
}
