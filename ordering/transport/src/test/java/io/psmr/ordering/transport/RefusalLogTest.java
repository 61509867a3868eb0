package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RefusalLogTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(123 * SECOND);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private Logger logger;

    @BeforeEach
    void captureLines() {
        logger = (Logger) LoggerFactory.getLogger("io.psmr.test.RefusalLogTest");
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void stopCapturing() {
        logger.detachAppender(lines);
    }

    private RefusalLog log(int maxPeers) {
        return new RefusalLog(logger, () -> "node 1", Duration.ofMinutes(1), maxPeers, now::get);
    }

    private List<String> warnings() {
        return lines.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void onePeerGetsOneLinePerIntervalButEveryRefusalIsCounted() {
        RefusalLog log = log(16);
        assertTrue(log.record(7, "closing connection with node 7", "malformed frame: bad version 9"));
        for (int i = 0; i < 5; i++) {
            now.addAndGet(10 * SECOND);
            assertFalse(log.record(7, "closing connection with node 7", "malformed frame: bad version 9"));
        }
        assertEquals(List.of("node 1: closing connection with node 7: malformed frame: bad version 9"), warnings());
        assertEquals(6, log.refusals());

        now.addAndGet(10 * SECOND); // 60 s after the first line
        assertTrue(log.record(7, "closing connection with node 7", "unknown node id 999 in hello"));
        assertEquals("node 1: closing connection with node 7: unknown node id 999 in hello"
                + " (5 more refusals of this peer not logged since the last line)", warnings().get(1));
        assertEquals(7, log.refusals());
    }

    @Test
    void otherPeersAreLoggedIndependently() {
        RefusalLog log = log(16);
        assertTrue(log.record(7, "closing connection with node 7", "a"));
        assertTrue(log.record(8, "closing connection with node 8", "b"));
        assertFalse(log.record(7, "closing connection with node 7", "c"));
        assertEquals(List.of("node 1: closing connection with node 7: a", "node 1: closing connection with node 8: b"), warnings());
    }

    @Test
    void itRemembersAtMostMaxPeersAndForgetsTheLeastRecentlyRefused() {
        RefusalLog log = log(2);
        assertTrue(log.record("a", "peer a", "x"));
        assertTrue(log.record("b", "peer b", "x"));
        assertFalse(log.record("a", "peer a", "x")); // a is now the most recent
        assertTrue(log.record("c", "peer c", "x")); // forgets b
        assertFalse(log.record("a", "peer a", "x"));
        assertTrue(log.record("b", "peer b", "x"), "b was forgotten, so its refusal is logged again at once");
        assertEquals(6, log.refusals());
    }

    @Test
    void refusingAChannelClosesItOnceAndIgnoresItAfterwards() {
        RefusalLog log = log(16);
        EmbeddedChannel bad = new EmbeddedChannel();
        EmbeddedChannel good = new EmbeddedChannel();
        assertTrue(log.refuse(bad, RefusalLog.hostOf(bad), "unidentified peer", "a frame longer than the limit"));
        assertFalse(bad.isOpen());
        assertTrue(good.isOpen(), "only the refused connection is closed");
        assertFalse(log.refuse(bad, RefusalLog.hostOf(bad), "unidentified peer", "a frame still queued in its decoder"));
        assertEquals(1, log.refusals());
        assertEquals(List.of("node 1: closing connection with unidentified peer: a frame longer than the limit"), warnings());
    }

    @Test
    void refusalsAreCountedByReasonAsWellAsInTotal() {
        RefusalLog log = log(16);
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        assertTrue(log.refuse(a, 1, "node 1", "oversized", "a frame longer than the limit"));
        assertFalse(log.refuse(a, 1, "node 1", "oversized", "counted once: the channel is closed"));
        assertTrue(log.refuse(b, 2, "node 2", "malformed", "bad framing"));
        log.record(3, "node 3", "no reason given");
        assertEquals(3, log.refusals());
        assertEquals(1, log.refusals("oversized"));
        assertEquals(1, log.refusals("malformed"));
        assertEquals(1, log.refusals(RefusalLog.UNCLASSIFIED));
        assertEquals(0, log.refusals("never"));
        assertEquals(java.util.Map.of("oversized", 1L, "malformed", 1L, RefusalLog.UNCLASSIFIED, 1L), log.refusalsByReason());
    }

    @Test
    void reasonsBeyondTheBoundCountAsUnclassified() {
        RefusalLog log = log(16);
        for (int i = 0; i < RefusalLog.MAX_REASONS + 5; i++) {
            log.record(i, "reason-" + i, "peer " + i, "why");
        }
        assertEquals(RefusalLog.MAX_REASONS + 5, log.refusals());
        assertEquals(RefusalLog.MAX_REASONS, log.refusalsByReason().size());
        assertEquals(6, log.refusals(RefusalLog.UNCLASSIFIED), "63 named reasons; the 64th slot is unclassified's");
    }

    @Test
    void badSettingsAreRefused() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new RefusalLog(logger, () -> "x", Duration.ZERO, 1, now::get));
        assertEquals("refusal log needs an interval of at least 1 ms and at least 1 peer, got PT0S and 1", e.getMessage());
    }
}
