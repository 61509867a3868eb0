package io.psmr.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.PsmrMain;
import io.psmr.bench.load.OpRecord;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The check that no client was acknowledged on the minority side of a partition, on fabricated histories: one that
 * breaks it in each way it can be broken, one that keeps it, and seeded random ones against a naive restatement of the
 * rule. {@code -Dpsmr.seed=S} starts the random ones at S.
 */
class MinorityCheckTest {

    private static final long T0 = 5_000_000_000L;
    private static final long BASE_SEED = Long.getLong("psmr.seed", 20261128L);

    /** A partition that cut the minority clients off with replica-3 from 1 s to 4 s of the load. */
    private static InjectedFault partition(long cut, long healing) {
        return new InjectedFault(FaultKind.PARTITION_HALVES, "replica-3", cut, cut, healing + 5, false, null, null,
                "cut [replica-3] off", List.of("replica-3"), cut, healing);
    }

    /** A write of client {@code client}, invoked and answered at these milliseconds of the load (answer null: none). */
    private static OpRecord write(int client, long invokeMillis, long completeMillis, KvStatus answer) {
        byte[][] keys = {"k1".getBytes(StandardCharsets.US_ASCII)};
        byte[][] values = {("v" + client + "." + invokeMillis).getBytes(StandardCharsets.US_ASCII)};
        return new OpRecord(client, 100 + client, KvOp.UPDATE, keys, values, T0 + invokeMillis * 1_000_000,
                T0 + completeMillis * 1_000_000, answer, null, answer == null ? "no answer" : null);
    }

    @Test
    void anAcknowledgementOnlyTheMinorityCanHaveGivenIsAViolation() {
        List<OpRecord> ops = List.of(
                write(13, 100, 500, KvStatus.OK),       // before the partition: not outstanding during it
                write(13, 900, 1200, KvStatus.OK),      // in flight at the cut, answered within the grace: its answer crossed first
                write(14, 900, 2500, KvStatus.OK),      // in flight at the cut, answered 1.5 s into it: a violation
                write(15, 2000, 2600, KvStatus.NOT_FOUND), // sent during it and answered during it: a violation, any status
                write(16, 3000, 4500, KvStatus.OK),     // sent during it, answered after the heal began: fine
                write(13, 2000, 7000, null));           // sent during it, never answered: outstanding only
        List<ChaosReport.MinoritySide> sides = MinorityCheck.check(List.of(partition(1000, 4000)), ops, T0);
        assertEquals(1, sides.size(), "one partition with a minority side: " + sides);
        ChaosReport.MinoritySide s = sides.get(0);
        assertEquals(List.of("replica-3"), s.reached());
        assertEquals(5, s.outstanding(), "every operation but the one done before the cut: " + s);
        assertEquals(3, s.sent(), "invoked after the cut: " + s);
        assertEquals(2, s.acknowledged(), "the two only a minority can have answered: " + s);
        assertEquals(1, s.answeredAtCut(), s.toString());
        assertEquals(1, s.afterHeal(), s.toString());
        assertEquals(2, s.examples().size(), s.toString());
        assertTrue(s.examples().get(0).contains("client 14"), s.examples().toString());

        ChaosReport r = report(sides);
        assertTrue(r.unsafe(), "an acknowledgement on the minority side is a safety failure");
        assertEquals(2, r.minorityAcknowledged());
        assertEquals(PsmrMain.EXIT_UNSAFE, ChaosCommand.exitCode(r));
    }

    @Test
    void answersOnlyAfterTheHealKeepTheCheck() {
        List<OpRecord> ops = List.of(
                write(13, 900, 1100, KvStatus.OK),
                write(14, 1500, 4000, KvStatus.OK),  // answered the instant the heal began: after it
                write(15, 3999, 9000, KvStatus.OK),
                write(16, 2000, 6000, null));
        List<ChaosReport.MinoritySide> sides = MinorityCheck.check(List.of(partition(1000, 4000)), ops, T0);
        assertEquals(0, sides.get(0).acknowledged(), sides.toString());
        assertEquals(2, sides.get(0).afterHeal(), sides.toString());
        assertFalse(report(sides).unsafe());
    }

    @Test
    void faultsWithoutAMinoritySideOrAHealAreNotChecked() {
        InjectedFault slow = new InjectedFault(FaultKind.SLOW_LINKS, "*", 0, 0, 3000, false, null, null, "slow");
        InjectedFault unhealed = new InjectedFault(FaultKind.ISOLATE_LEADER, "replica-1", 0, 0, -1, false, "link host gone",
                null, "cut", List.of("replica-1"), 10, -1);
        List<OpRecord> ops = List.of(write(13, 100, 200, KvStatus.OK));
        assertTrue(MinorityCheck.check(List.of(slow, unhealed), ops, T0).isEmpty());
    }

    /** Random histories against the rule restated naively: a violation is an answer in (cut, healing) sent late or late. */
    @Test
    void randomHistoriesAgreeWithTheRule() {
        for (int i = 0; i < 200; i++) {
            long seed = BASE_SEED + i;
            Random random = new Random(seed);
            long cut = 500 + random.nextInt(2000);
            long healing = cut + 1000 + random.nextInt(4000);
            List<OpRecord> ops = new ArrayList<>();
            long expected = 0;
            for (int c = 0; c < 20; c++) {
                long invoke = random.nextInt((int) healing + 2000);
                long complete = invoke + random.nextInt(3000);
                boolean answered = random.nextInt(5) > 0;
                ops.add(write(c + 1, invoke, complete, answered ? KvStatus.OK : null));
                if (answered && complete > cut && complete < healing && invoke < healing
                        && (invoke >= cut || complete > cut + MinorityCheck.GRACE_MILLIS)) {
                    expected++;
                }
            }
            long found = MinorityCheck.check(List.of(partition(cut, healing)), ops, T0).get(0).acknowledged();
            assertEquals(expected, found, "seed " + seed);
        }
    }

    private static ChaosReport report(List<ChaosReport.MinoritySide> sides) {
        return new ChaosReport(1, "ratis", "/tmp/c", 20_000, List.of("partition-halves"), List.of(), List.of(), List.of(),
                new ChaosReport.Operations(10, 0, 0), 500, List.of(), 0, List.of("a", "a", "a"), 3, true, true, 1,
                List.of(), sides.stream().anyMatch(s -> s.acknowledged() > 0) ? List.of("minority side") : List.of(), false,
                List.of(), 4, sides, false, List.of());
    }
}
