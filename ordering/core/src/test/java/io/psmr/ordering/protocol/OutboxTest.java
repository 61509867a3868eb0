package io.psmr.ordering.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class OutboxTest {

    @Test
    void aReadyHoldsWhatWasCollectedInOrderAndTheNextStartsEmpty() {
        Outbox<String, Integer, Character> outbox = new Outbox<>();
        outbox.send("a");
        outbox.persist(1);
        outbox.output('x');
        outbox.send("b");
        outbox.persist(2);
        Ready<String, Integer, Character> ready = outbox.drain();
        assertEquals(new Ready<>(List.of(1, 2), List.of("a", "b"), List.of('x')), ready);
        outbox.advance(ready);
        assertTrue(outbox.drain().isEmpty());
    }

    @Test
    void nothingCollectedGivesTheEmptyReadyWhichNeedsNoAdvance() {
        Outbox<String, Void, String> outbox = new Outbox<>();
        assertSame(Ready.empty(), outbox.drain());
        assertSame(Ready.empty(), outbox.drain());
        outbox.advance(Ready.empty());
    }

    @Test
    void aReadyMustBeAdvancedBeforeTheNext() {
        Outbox<String, Integer, String> outbox = new Outbox<>();
        outbox.persist(1);
        Ready<String, Integer, String> first = outbox.drain();
        outbox.send("after");
        assertEquals("ready() before advance() of the previous Ready: persist its writes, send its messages, then"
                + " advance it", assertThrows(IllegalStateException.class, outbox::drain).getMessage());
        Ready<String, Integer, String> other = new Ready<>(List.of(1), List.of(), List.of());
        assertEquals("advance() of a Ready that is not the last one returned by ready()",
                assertThrows(IllegalArgumentException.class, () -> outbox.advance(other)).getMessage());
        outbox.advance(first);
        assertEquals(List.of("after"), outbox.drain().messages(), "what came after the first Ready waits for the next");
    }

    @Test
    void aReadyIsImmutable() {
        Ready<String, Integer, String> ready = new Ready<>(new java.util.ArrayList<>(List.of(1)), List.of("m"), List.of());
        assertThrows(UnsupportedOperationException.class, () -> ready.writes().add(2));
    }
}
