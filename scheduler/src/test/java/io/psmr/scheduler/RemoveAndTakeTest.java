package io.psmr.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psmr.scheduler.testing.TestCommand;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The worker's combined operation: remove a finished batch and take the next, under one lock. */
class RemoveAndTakeTest {

    private static final ConflictDetection DETECTION = ConflictDetection.bitmap(1_024);

    private static Batch<TestCommand> write(long instance, long key) {
        return Batch.of(instance, List.of(TestCommand.write(instance, key)), DETECTION);
    }

    @ParameterizedTest
    @EnumSource(GraphKind.class)
    void takesTheBatchItsRemovalFreedAndReturnsNullOnceClosedAndDrained(GraphKind kind) throws Exception {
        DependencyGraph<TestCommand> g = kind.create(DETECTION, 8);
        g.insert(write(1, 7));
        g.insert(write(2, 7));
        g.insert(write(3, 7));
        PendingBatch<TestCommand> first = g.take();
        assertEquals(1, first.batch().instance());
        assertNull(g.tryTake(), "2 and 3 wait for 1");

        PendingBatch<TestCommand> second = g.removeAndTake(first);
        assertEquals(2, second.batch().instance());
        assertEquals(2, g.size());

        g.close();
        PendingBatch<TestCommand> third = g.removeAndTake(second);
        assertEquals(3, third.batch().instance());
        assertNull(g.removeAndTake(third), "closed and drained");
        assertEquals(0, g.size());
        assertEquals(3, g.statistics().removed());
    }

    @ParameterizedTest
    @EnumSource(GraphKind.class)
    void refusesABatchNotTakenFromThisGraphAndChangesNothing(GraphKind kind) throws Exception {
        DependencyGraph<TestCommand> g = kind.create(DETECTION, 8);
        DependencyGraph<TestCommand> other = kind.create(DETECTION, 8);
        other.insert(write(1, 1));
        PendingBatch<TestCommand> foreign = other.take();
        g.insert(write(1, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> g.removeAndTake(foreign));
        assertEquals("batch 1 was not taken from this graph", e.getMessage());
        assertEquals(1, g.size());
        PendingBatch<TestCommand> mine = g.take();
        g.remove(mine);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> g.removeAndTake(mine));
        assertEquals("batch 1 was removed already", twice.getMessage());
    }

    /** The ready count: free batches not yet taken; the rest of the graph runs or waits behind a conflict. */
    @ParameterizedTest
    @EnumSource(GraphKind.class)
    void statisticsCountTheReadyBatches(GraphKind kind) throws Exception {
        DependencyGraph<TestCommand> g = kind.create(DETECTION, 8);
        g.insert(write(1, 7));
        g.insert(write(2, 7));   // waits for 1
        g.insert(write(3, 300)); // free
        GraphStatistics s = g.statistics();
        assertEquals(3, s.size());
        assertEquals(2, s.ready(), s.toString());
        PendingBatch<TestCommand> first = g.take();
        assertEquals(1, g.statistics().ready(), "1 taken, 2 waits, 3 is ready");
        g.remove(first);
        assertEquals(2, g.statistics().ready(), "2 freed, 3 still ready");
    }
}
