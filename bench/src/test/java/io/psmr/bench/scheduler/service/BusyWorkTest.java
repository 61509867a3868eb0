package io.psmr.bench.scheduler.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Calibration and scaling of the busy work; asserts no speed, only consistency. */
class BusyWorkTest {

    @Test
    void iterationsFollowTheCalibration() {
        double perNano = BusyWork.iterationsPerNano();
        assertTrue(perNano > 0 && Double.isFinite(perNano), "calibrated " + perNano);
        assertEquals(perNano, BusyWork.iterationsPerNano(), "calibrated once");
        BusyWork w = BusyWork.of(10_000);
        assertEquals(Math.max(1, Math.round(10_000 * perNano)), w.iterations());
        assertTrue(w.describe().startsWith("10000 ns of busy work per command ("), w.describe());
        w.run(5);
        assertEquals(0, w.hits(), "the sentinel is not hit by chance");
        assertSame(BusyWork.NONE, BusyWork.of(0));
        assertEquals(0, BusyWork.NONE.iterations());
    }

    @Test
    void theSpinIsAFunctionOfItsSeed() {
        assertEquals(BusyWork.spin(3, 1000), BusyWork.spin(3, 1000));
        assertTrue(BusyWork.spin(3, 1000) != BusyWork.spin(4, 1000));
    }

    @Test
    void outOfRangeIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BusyWork.of(1_000_001));
        assertEquals("work must be from 0 to 1000000 ns, got 1000001", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BusyWork.of(-1));
    }
}
