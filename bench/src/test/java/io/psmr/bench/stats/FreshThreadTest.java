package io.psmr.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class FreshThreadTest {

    @Test
    void theBodyRunsOnANewThreadOfThatNameAndItsResultComesBack() throws Exception {
        Thread caller = Thread.currentThread();
        Thread ran = FreshThread.call("psmr-test-fresh", Thread::currentThread);
        assertNotEquals(caller, ran);
        assertEquals("psmr-test-fresh", ran.getName());
        assertEquals(42, FreshThread.call("psmr-test-fresh", () -> 42));
    }

    @Test
    void uncheckedFailuresComeBackAsTheyWereAndCheckedOnesWrappedWithTheThreadsName() {
        IllegalArgumentException thrown = new IllegalArgumentException("bad cell");
        assertSame(thrown, assertThrows(IllegalArgumentException.class, () -> FreshThread.call("t", () -> {
            throw thrown;
        })));
        IllegalStateException wrapped = assertThrows(IllegalStateException.class,
                () -> FreshThread.call("psmr-test-fresh", () -> {
                    throw new IOException("disk gone");
                }));
        assertEquals("psmr-test-fresh failed: java.io.IOException: disk gone", wrapped.getMessage());
        assertEquals(IOException.class, wrapped.getCause().getClass());
    }
}
