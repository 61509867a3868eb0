package io.psmr.ordering.ringpaxos.storage;

import static io.psmr.ordering.ringpaxos.StorageChanges.decide;
import static io.psmr.ordering.ringpaxos.StorageChanges.promise;
import static io.psmr.ordering.ringpaxos.StorageChanges.state;
import static io.psmr.ordering.ringpaxos.StorageChanges.take;
import static io.psmr.ordering.ringpaxos.StorageChanges.trim;
import static io.psmr.ordering.ringpaxos.StorageChanges.vote;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.ringpaxos.AcceptorNode;
import io.psmr.ordering.ringpaxos.AcceptorStorage;
import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.Message;
import io.psmr.ordering.ringpaxos.Output;
import io.psmr.ordering.ringpaxos.ProposalId;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.StorageChange;
import io.psmr.ordering.ringpaxos.Value;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileAcceptorLog}: every change round-trips through the file, restart restores the state an
 * {@link AcceptorNode} relies on, torn tails are cut off, other damage is refused, and compaction bounds the file.
 */
class FileAcceptorLogTest {

    private static final int CAPACITY = 64;

    @TempDir
    Path dir;

    private static Value value(int proposer, long seq, int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (seq * 31 + i);
        }
        return new Value(new ProposalId(proposer, seq), data);
    }

    private FileAcceptorLog open() throws IOException {
        return FileAcceptorLog.open(dir, CAPACITY, false);
    }

    @Test
    void everyRecordKindRoundTrips() throws IOException {
        List<String> before;
        try (FileAcceptorLog log = open()) {
            AcceptorStorage s = log.storage();
            assertEquals(List.of("highestDecided 0"), state(s), "a new directory gives empty storage");
            trim(s, 3);
            promise(s, new Ballot(2, 1));
            vote(s, 4, new Ballot(2, 1), value(20, 1, 5));
            vote(s, 5, new Ballot(2, 1), value(21, 7, 0));
            vote(s, 6, new Ballot(3, 0), Value.NOOP);
            vote(s, 5, new Ballot(3, 0), value(20, 2, 1000)); // a second vote replaces the first
            decide(s, 4, value(20, 1, 5));
            decide(s, 7, Value.NOOP); // decided without a vote here
            promise(s, new Ballot(9, 2));
            before = state(s);
            flush(log);
        }
        try (FileAcceptorLog log = open()) {
            assertEquals(before, state(log.storage()));
            assertEquals(new Ballot(9, 2), log.storage().promised());
            assertEquals(3, log.storage().trimmedTo());
            assertEquals(7, log.storage().highestDecided());
        }
    }

    @Test
    void randomChangesSurviveRestarts() throws IOException {
        long seed = System.nanoTime();
        System.out.println("FileAcceptorLogTest.randomChangesSurviveRestarts seed " + seed);
        Random random = new Random(seed);
        List<String> expected = List.of("highestDecided 0");
        long round = 1;
        for (int restart = 0; restart < 20; restart++) {
            try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, random.nextBoolean(), 4096)) {
                AcceptorStorage s = log.storage();
                assertEquals(expected, state(s), "seed " + seed + ", restart " + restart);
                for (int i = 0; i < 50; i++) {
                    long instance = s.trimmedTo() + 1 + random.nextInt(CAPACITY);
                    switch (random.nextInt(4)) {
                        case 0 -> promise(s, new Ballot(round += random.nextInt(2), random.nextInt(3)));
                        case 1 -> vote(s, instance, new Ballot(round, random.nextInt(3)),
                                value(20, random.nextInt(1000) + 1, random.nextInt(40)));
                        case 2 -> decide(s, instance, value(21, random.nextInt(1000) + 1, random.nextInt(40)));
                        default -> trim(s, s.trimmedTo() + random.nextInt(8));
                    }
                    if (random.nextInt(5) == 0) {
                        flush(log);
                    }
                }
                log.append(take(s)); // close() writes what was appended
                expected = state(s);
            }
        }
    }

    @Test
    void restoredStorageKeepsTheNodeToItsPromise() throws IOException {
        RingPaxosConfig config = RingPaxosConfig.of(List.of(0, 1, 2), List.of(10), List.of(20));
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, config.logCapacity(), false)) {
            AcceptorNode node = new AcceptorNode(config, 0, log.storage());
            node.step(new Message.Prepare(1, 0, new Ballot(5, 1), 1));
            node.step(new Message.Accept(1, 0, new Ballot(5, 1), 1, value(20, 1, 3), List.of(1, 0), 1));
            assertEquals(new Ballot(5, 1), log.storage().promised());
            Ready<Message, StorageChange, Output> written = node.ready();
            log.append(written.writes());
            log.flush();
            node.advance(written);
        }
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, config.logCapacity(), false)) {
            AcceptorNode node = new AcceptorNode(config, 0, log.storage());
            assertEquals(new Ballot(5, 1), log.storage().promised());
            assertFalse(node.isCoordinator(), "a restarted acceptor does not coordinate before a Phase 1");
            // An Accept in a ballot below the restored promise is refused, not voted for.
            node.step(new Message.Accept(2, 0, new Ballot(4, 2), 2, value(20, 2, 3), List.of(2, 0), 1));
            assertTrue(drain(node).messages().stream().allMatch(m -> m instanceof Message.Reject),
                    "a vote below the promise must be refused");
            assertFalse(log.storage().isDecided(2));
            assertTrue(state(log.storage()).stream().noneMatch(l -> l.startsWith("vote 2 ")), "no vote at 2");
            // As lowest acceptor it coordinates again, but only under a ballot above its restored promise.
            Ready<Message, StorageChange, Output> ready = Ready.empty();
            for (int t = 0; t < 5 && ready.messages().stream().noneMatch(m -> m instanceof Message.Prepare); t++) {
                node.tick();
                ready = drain(node);
            }
            Message.Prepare prepare = ready.messages().stream().filter(m -> m instanceof Message.Prepare)
                    .map(m -> (Message.Prepare) m).findFirst().orElseThrow();
            assertTrue(prepare.ballot().isAbove(new Ballot(5, 1)), "prepared " + prepare.ballot());
            assertTrue(log.storage().isDecided(1), "as last ring member it decided instance 1, and remembers it");
            assertEquals(2, prepare.fromInstance(), "Phase 1 starts at its first undecided instance");
        }
    }

    @Test
    void tornTailIsCutOff() throws IOException {
        List<String> before;
        long goodSize;
        try (FileAcceptorLog log = open()) {
            promise(log.storage(), new Ballot(1, 0));
            vote(log.storage(), 1, new Ballot(1, 0), value(20, 1, 10));
            before = state(log.storage());
            flush(log);
            goodSize = log.sizeBytes();
        }
        long fullSize;
        try (FileAcceptorLog log = open()) {
            vote(log.storage(), 2, new Ballot(1, 0), value(20, 2, 50));
            flush(log);
            fullSize = log.sizeBytes();
        }
        Path file = dir.resolve(FileAcceptorLog.FILE_NAME);
        byte[] full = Files.readAllBytes(file);
        assertEquals(fullSize, full.length);
        for (long cut = goodSize + 1; cut < fullSize; cut += 7) {
            writeTruncated(file, full, cut);
            try (FileAcceptorLog log = open()) {
                assertEquals(before, state(log.storage()), "cut at " + cut);
                assertEquals(goodSize, Files.size(file), "the torn record is removed from the file");
            }
        }
        // A complete last record with a bad checksum (a torn page), and a tail of zeros, are torn writes too.
        byte[] flipped = full.clone();
        flipped[full.length - 3] ^= 0x40;
        Files.write(file, flipped);
        try (FileAcceptorLog log = open()) {
            assertEquals(before, state(log.storage()));
        }
        byte[] zeros = new byte[(int) goodSize + 100];
        System.arraycopy(full, 0, zeros, 0, (int) goodSize);
        Files.write(file, zeros);
        try (FileAcceptorLog log = open()) {
            assertEquals(before, state(log.storage()));
            // ... and the log goes on from there.
            vote(log.storage(), 3, new Ballot(1, 0), value(20, 3, 1));
            flush(log);
            before = state(log.storage());
        }
        try (FileAcceptorLog log = open()) {
            assertEquals(before, state(log.storage()));
        }
    }

    private static void writeTruncated(Path file, byte[] full, long length) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(0);
            f.write(full, 0, (int) length);
        }
    }

    @Test
    void damageBeforeTheLastRecordIsRefusedWithFileAndOffset() throws IOException {
        try (FileAcceptorLog log = open()) {
            promise(log.storage(), new Ballot(1, 0));
            vote(log.storage(), 1, new Ballot(1, 0), value(20, 1, 10));
            vote(log.storage(), 2, new Ballot(1, 0), value(20, 2, 10));
            flush(log);
        }
        Path file = dir.resolve(FileAcceptorLog.FILE_NAME);
        byte[] good = Files.readAllBytes(file);
        int secondRecord = 8 + 12 + 13; // magic, then the promise record
        byte[] bad = good.clone();
        bad[secondRecord + 12 + 5] ^= 1; // inside the first vote's body
        Files.write(file, bad);
        IOException e = assertThrows(IOException.class, this::open);
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("offset " + secondRecord), e.getMessage());

        bad = good.clone();
        bad[secondRecord + 1] ^= 1; // its length
        Files.write(file, bad);
        e = assertThrows(IOException.class, this::open);
        assertTrue(e.getMessage().contains("offset " + secondRecord), e.getMessage());

        bad = good.clone();
        bad[0] = 'X';
        Files.write(file, bad);
        e = assertThrows(IOException.class, this::open);
        assertTrue(e.getMessage().contains("offset 0"), e.getMessage());

        // The lock was released by every refused open.
        Files.write(file, good);
        open().close();
    }

    @Test
    void aSecondOpenOfOneDirectoryIsRefused() throws IOException {
        try (FileAcceptorLog log = open()) {
            IOException e = assertThrows(IOException.class, this::open);
            assertTrue(e.getMessage().contains("already open"), e.getMessage());
        }
        open().close();
    }

    @Test
    void compactionKeepsTheFileBoundedAndTheStateIntact() throws IOException {
        long compactBytes = 16 * 1024;
        int compactions = 0;
        long maxSize = 0;
        List<String> before;
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false, compactBytes)) {
            AcceptorStorage s = log.storage();
            for (long i = 1; i <= 5_000; i++) {
                Ballot b = new Ballot(1 + i / 1000, 0);
                promise(s, b);
                vote(s, i, b, value(20, i, 40));
                decide(s, i, value(20, i, 40));
                if (i % 10 == 0) {
                    trim(s, i - 20);
                }
                long sizeBefore = log.sizeBytes();
                flush(log);
                if (log.sizeBytes() < sizeBefore) {
                    compactions++;
                }
                maxSize = Math.max(maxSize, Files.size(log.file()));
            }
            before = state(s);
        }
        // Each snapshot holds at most CAPACITY votes and decisions of about 100 bytes each.
        long snapshotBound = 2L * CAPACITY * 120 + 100;
        assertTrue(maxSize <= compactBytes + 2 * snapshotBound, "the file reached " + maxSize + " bytes");
        assertTrue(compactions > 10, "compacted only " + compactions + " times");
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false, compactBytes)) {
            assertEquals(before, state(log.storage()));
            assertEquals(4_980, log.storage().trimmedTo());
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(FileAcceptorLog.FILE_NAME, "acceptor.lock"),
                    files.map(p -> p.getFileName().toString()).sorted((a, b) -> a.equals(FileAcceptorLog.FILE_NAME) ? -1 : 1).toList());
        }
    }

    @Test
    void aFailedCompactionKeepsTheLogWorkingAndIsRetriedLater() throws IOException {
        long compactBytes = 8 * 1024;
        int[] attempts = {0};
        boolean[] failing = {true};
        List<String> before;
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false, compactBytes)) {
            log.compactHook(tmp -> {
                attempts[0]++;
                assertTrue(Files.exists(tmp), "the compacted file was written");
                if (failing[0]) {
                    throw new IOException("No space left on device (test)");
                }
            });
            AcceptorStorage s = log.storage();
            long failedAt = 0;
            long i = 1;
            // One attempt above the bound, then none until the file has doubled.
            while (attempts[0] < 2) {
                writeInstance(s, i++);
                long sizeBefore = log.sizeBytes();
                flush(log); // never throws: the records are durable
                assertTrue(log.sizeBytes() >= sizeBefore, "a failing compaction replaced the file at instance " + i);
                assertFalse(Files.exists(dir.resolve(FileAcceptorLog.TMP_NAME)), "the temporary file is deleted");
                if (attempts[0] == 1 && failedAt == 0) {
                    failedAt = log.sizeBytes();
                }
            }
            assertTrue(failedAt > compactBytes, "compaction was tried only above its bound: " + failedAt);
            assertTrue(log.sizeBytes() >= 2 * failedAt, "retried at " + log.sizeBytes() + " bytes, before the file doubled from "
                    + failedAt);
            failing[0] = false;
            long retryFrom = log.sizeBytes();
            while (attempts[0] < 3) {
                writeInstance(s, i++);
                flush(log);
            }
            assertTrue(log.sizeBytes() < retryFrom, "the next attempt compacted: " + log.sizeBytes() + " bytes");
            writeInstance(s, i);
            flush(log);
            before = state(s);
        }
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false, compactBytes)) {
            assertEquals(before, state(log.storage()), "restored after a failed and a successful compaction");
        }
    }

    @Test
    void aFailedCompactionLeavesARestorableLog() throws IOException {
        List<String> before;
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false, 4096)) {
            log.compactHook(tmp -> {
                throw new IOException("No space left on device (test)");
            });
            AcceptorStorage s = log.storage();
            for (long i = 1; log.sizeBytes() < 3 * 4096; i++) {
                writeInstance(s, i);
                flush(log);
            }
            before = state(s);
        }
        try (FileAcceptorLog log = FileAcceptorLog.open(dir, CAPACITY, false, 4096)) {
            assertEquals(before, state(log.storage()));
        }
    }

    /** A promise, a vote and a decision at {@code i}, trimming every 10 instances. */
    private static void writeInstance(AcceptorStorage s, long i) {
        Ballot b = new Ballot(1 + i / 100, 0);
        promise(s, b);
        vote(s, i, b, value(20, i, 40));
        decide(s, i, value(20, i, 40));
        if (i % 10 == 0) {
            trim(s, i - 20);
        }
    }

    /** Appends what the storage changed since the last call (as a node's Ready would carry it) and flushes. */
    private static void flush(FileAcceptorLog log) {
        log.append(take(log.storage()));
        log.flush();
    }

    /** The node's next Ready, advanced at once (for steps whose writes this test does not persist). */
    private static Ready<Message, StorageChange, Output> drain(AcceptorNode node) {
        Ready<Message, StorageChange, Output> ready = node.ready();
        node.advance(ready);
        return ready;
    }
}
