package io.psmr.ordering.ringpaxos.storage;

import io.psmr.ordering.ringpaxos.AcceptorStorage;
import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.ProposalId;
import io.psmr.ordering.ringpaxos.StorageChange;
import io.psmr.ordering.ringpaxos.Value;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An acceptor's {@link AcceptorStorage} kept durable in a directory: an append-only log of the
 * {@link StorageChange}s the acceptor's Readys carry, replayed on {@link #open}, and compacted when it grows.
 *
 * <h2>Use</h2>
 * <pre>{@code
 * FileAcceptorLog log = FileAcceptorLog.open(dir, config.logCapacity(), false);
 * AcceptorNode node = new AcceptorNode(config, id, log.storage());
 * // on the node's thread, after step/tick:
 * Ready<Message, StorageChange, Output> ready = node.ready();
 * log.append(ready.writes());
 * log.flush();                  // before sending ready.messages()
 * send(ready.messages());
 * node.advance(ready);
 * }</pre>
 * {@link #append} buffers changes in memory; {@link #flush()} writes them to the file. The host flushes before it
 * sends the messages of a Ready, so no promise or vote leaves the process before it is in the file
 * ({@code RingPaxosAcceptor} does this).
 *
 * <h2>Failure model and {@code fsync}</h2>
 * {@code flush()} hands the bytes to the operating system ({@code FileChannel.write}). That survives the crash of
 * the process (SIGKILL included): the kernel keeps the written pages and writes them out later. It does not
 * survive a crash of the machine or the operating system; for that, open with {@code fsync = true}, and each
 * {@code flush()} that wrote something also forces the file to the device (and compaction forces the new file and
 * the directory), at the price of one device flush per batch of messages. The default is off: psmr's failure
 * model is crash-stop processes, and 2f+1 acceptors on different machines do not all lose power at once.
 *
 * <h2>File format</h2>
 * {@code dir/acceptor.log}: an 8-byte magic {@code "PSMRACL1"}, then records, all big-endian:
 * <pre>
 * record  = length:i32 lengthCrc:i32 bodyCrc:i32 body[length]   (CRC-32C; lengthCrc over the 4 length bytes)
 * ballot  = round:i64 coordinator:i32
 * value   = proposer:i32 seq:i64 length:i32 bytes[length]
 * body    = 1 PROMISE ballot
 *         | 2 VOTE    instance:i64 ballot value
 *         | 3 DECIDE  instance:i64 value
 *         | 4 TRIM    upTo:i64
 * </pre>
 * On open the records are replayed in order onto empty storage ({@link AcceptorStorage#restore}). A last record
 * that is incomplete (the file ends inside it), fails its checksum with nothing after it, or a tail of zero bytes,
 * is a write torn by a crash: nothing that depended on it was sent, so it is cut off (with a WARN line) and the
 * log opens. Any other damage (a bad checksum or an unknown record type with records after it, a bad magic) is
 * refused with an {@link IOException} naming the file and the byte offset: the acceptor must not run on
 * storage that may have forgotten a promise.
 *
 * <h2>Compaction</h2>
 * When a {@code flush()} leaves the file larger than {@code max(compactBytes, 2 × the last compacted size)}, the log
 * writes the storage's current state ({@link AcceptorStorage#asChanges}; bounded by its capacity) to
 * {@code acceptor.log.tmp} and atomically renames it over {@code acceptor.log}. A crash in between leaves the old
 * file whole; a leftover {@code .tmp} is deleted on open. So the directory holds at most about
 * {@code compactBytes} plus two snapshots.
 *
 * <h2>Exclusion</h2>
 * {@code open} takes an exclusive lock on {@code dir/acceptor.lock} for as long as the log is open (the operating
 * system releases it when the process dies), so two acceptors can never write one directory.
 *
 * <h2>Threads</h2>
 * Not thread-safe: the storage, {@code flush()} and {@code close()} belong to the node's thread (or to whoever
 * holds the node's thread stopped).
 */
public final class FileAcceptorLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FileAcceptorLog.class);

    /** The log's file name in its directory. */
    public static final String FILE_NAME = "acceptor.log";
    /** The default size beyond which the log is compacted: 64 MiB. */
    public static final long DEFAULT_COMPACT_BYTES = 64L << 20;

    static final String TMP_NAME = "acceptor.log.tmp";
    static final String LOCK_NAME = "acceptor.lock";
    static final byte[] MAGIC = {'P', 'S', 'M', 'R', 'A', 'C', 'L', '1'};
    static final int HEADER_BYTES = 12;
    /** Larger than any record psmr writes (a value is bounded by the transport's frame size). */
    static final int MAX_BODY_BYTES = 1 << 30;

    private static final byte PROMISE = 1;
    private static final byte VOTE = 2;
    private static final byte DECIDE = 3;
    private static final byte TRIM = 4;

    private final Path dir;
    private final Path file;
    private final boolean fsync;
    private final long compactBytes;
    private final AcceptorStorage storage;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private FileChannel channel;
    private long size;
    private long lastCompactedBytes;
    // After a failed compaction, the size the file must reach before the next attempt (0: none failed).
    private long compactRetryBytes;
    // Changes reported since the last flush, as records; recordStart is where the last one begins.
    private ByteBuffer pending = ByteBuffer.allocate(4096);
    private int recordStart;
    private final CRC32C checksum = new CRC32C();
    private boolean closed;

    private FileAcceptorLog(Path dir, int capacity, boolean fsync, long compactBytes, FileChannel lockChannel,
                            FileLock lock) throws IOException {
        this.dir = dir;
        this.file = dir.resolve(FILE_NAME);
        this.fsync = fsync;
        this.compactBytes = compactBytes;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.storage = new AcceptorStorage(capacity);
        Files.deleteIfExists(dir.resolve(TMP_NAME)); // an unfinished compaction; the log itself is whole
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            replay();
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        // Not the restored file's size: a large uncompacted log is compacted at the first flush above compactBytes.
        this.lastCompactedBytes = 0;
    }

    /**
     * Opens (creating if needed) the log in {@code dir} with the default compaction size.
     *
     * @see #open(Path, int, boolean, long)
     */
    public static FileAcceptorLog open(Path dir, int capacity, boolean fsync) throws IOException {
        return open(dir, capacity, fsync, DEFAULT_COMPACT_BYTES);
    }

    /**
     * Opens the log in {@code dir} (created if missing) and restores its storage: empty if the directory holds
     * no log.
     *
     * @param dir          the acceptor's own directory
     * @param capacity     the storage's capacity ({@code RingPaxosConfig.logCapacity()}); at least the one the log
     *                     was written with
     * @param fsync        whether {@link #flush()} forces the file to the device (machine crashes; see the class
     *                     comment)
     * @param compactBytes the file size beyond which the log is rewritten from the current state, at least 4,096
     * @throws IOException if the directory cannot be used, is locked by another open log, or the log is damaged
     *                     other than by a torn last write (the message names the file and the offset)
     */
    public static FileAcceptorLog open(Path dir, int capacity, boolean fsync, long compactBytes) throws IOException {
        Objects.requireNonNull(dir, "dir");
        if (compactBytes < 4096) {
            throw new IllegalArgumentException("compactBytes must be at least 4096, got " + compactBytes);
        }
        Files.createDirectories(dir);
        Path lockFile = dir.resolve(LOCK_NAME);
        FileChannel lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            lockChannel.close();
            throw e;
        }
        if (lock == null) {
            lockChannel.close();
            throw new IOException("acceptor log " + dir + " is already open (" + lockFile + " is locked)");
        }
        try {
            return new FileAcceptorLog(dir, capacity, fsync, compactBytes, lockChannel, lock);
        } catch (IOException | RuntimeException e) {
            lock.release();
            lockChannel.close();
            throw e;
        }
    }

    /**
     * The restored storage; build the {@code AcceptorNode} on it. Its later changes reach this log through
     * {@link #append}, from the node's Readys.
     */
    public AcceptorStorage storage() {
        return storage;
    }

    /** The log file. */
    public Path file() {
        return file;
    }

    /** The log file's size in bytes, as written so far. */
    public long sizeBytes() {
        return size;
    }

    // ------------------------------------------------------------------------------------ buffering

    /**
     * Buffers {@code changes}, in order, to be written by the next {@link #flush()}: a Ready's
     * {@link io.psmr.ordering.protocol.Ready#writes() writes}. They must be changes the log's storage has already
     * made (the node made them), so that the file and the storage agree.
     */
    public void append(List<? extends StorageChange> changes) {
        for (StorageChange c : changes) {
            encode(c);
        }
    }

    private void encode(StorageChange change) {
        if (change instanceof StorageChange.Promised p) {
            ByteBuffer b = record(1 + 12);
            b.put(PROMISE);
            putBallot(b, p.ballot());
            seal(b);
        } else if (change instanceof StorageChange.Voted v) {
            ByteBuffer b = record(1 + 8 + 12 + valueBytes(v.value()));
            b.put(VOTE).putLong(v.instance());
            putBallot(b, v.ballot());
            putValue(b, v.value());
            seal(b);
        } else if (change instanceof StorageChange.Decided d) {
            ByteBuffer b = record(1 + 8 + valueBytes(d.value()));
            b.put(DECIDE).putLong(d.instance());
            putValue(b, d.value());
            seal(b);
        } else if (change instanceof StorageChange.Trimmed t) {
            ByteBuffer b = record(1 + 8);
            b.put(TRIM).putLong(t.upTo());
            seal(b);
        }
    }

    private static int valueBytes(Value v) {
        return 4 + 8 + 4 + v.data().length;
    }

    private static void putBallot(ByteBuffer b, Ballot ballot) {
        b.putLong(ballot.round()).putInt(ballot.coordinator());
    }

    private static void putValue(ByteBuffer b, Value v) {
        b.putInt(v.id().proposer()).putLong(v.id().seq()).putInt(v.data().length).put(v.data());
    }

    /** Makes room for a record of {@code bodyLength} in the pending buffer and writes its length. */
    private ByteBuffer record(int bodyLength) {
        if (closed) {
            throw new IllegalStateException("acceptor log " + file + " is closed");
        }
        int needed = HEADER_BYTES + bodyLength;
        if (pending.remaining() < needed) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(pending.capacity() * 2, pending.position() + needed));
            pending.flip();
            bigger.put(pending);
            pending = bigger;
        }
        recordStart = pending.position();
        pending.putInt(bodyLength);
        pending.putInt(crc(pending.array(), recordStart, 4)).putInt(0);
        return pending;
    }

    /** Fills in the body checksum of the record just written to the pending buffer. */
    private void seal(ByteBuffer b) {
        int bodyLength = b.position() - recordStart - HEADER_BYTES;
        b.putInt(recordStart + 8, crc(b.array(), recordStart + HEADER_BYTES, bodyLength));
    }

    private int crc(byte[] bytes, int offset, int length) {
        checksum.reset();
        checksum.update(bytes, offset, length);
        return (int) checksum.getValue();
    }

    // ------------------------------------------------------------------------------------ flush and compaction

    /**
     * Writes every change appended since the last flush to the file (and forces it to the device with
     * {@code fsync}), then compacts if the file has grown past its bound. Call it before sending the messages
     * that follow the changes.
     *
     * <p>A compaction that fails before it replaces the file (the new file cannot be written or renamed, e.g. a
     * full disk) does not fail the flush: the changes are already durable in the append-only log, which is kept.
     * It is logged at WARN, its temporary file is deleted, and compaction is tried again once the file has doubled.
     *
     * @throws UncheckedIOException if the write fails: the changes are not durable, so the caller must not send;
     *                              or if a compaction replaced the file but it cannot be reopened for appending
     */
    public void flush() {
        if (closed) {
            throw new IllegalStateException("acceptor log " + file + " is closed");
        }
        if (pending.position() == 0) {
            return;
        }
        try {
            pending.flip();
            while (pending.hasRemaining()) {
                size += channel.write(pending, size);
            }
            pending.clear();
            if (fsync) {
                channel.force(false);
            }
            if (size > Math.max(compactBytes, 2 * lastCompactedBytes) && size >= compactRetryBytes) {
                compact();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write acceptor log " + file, e);
        }
    }

    /**
     * Rewrites the log from the storage's current state into a new file and renames it over the old one. A failure
     * before the rename leaves the old file in use and schedules a retry; one after it (reopening the new file) is
     * thrown, since the old channel no longer names the log.
     */
    private void compact() throws IOException {
        long before = size;
        Path tmp = dir.resolve(TMP_NAME);
        long written = 0;
        try {
            ByteBuffer snapshot = snapshot();
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                while (snapshot.hasRemaining()) {
                    written += out.write(snapshot);
                }
                if (fsync) {
                    out.force(true);
                }
            }
            compactHook.beforeRename(tmp);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system cannot rename " + tmp + " atomically", e);
            }
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException deleting) {
                e.addSuppressed(deleting);
            }
            compactRetryBytes = 2 * size;
            LOG.warn("cannot compact acceptor log {} ({} bytes); keeping the append-only log, next attempt at {} bytes",
                    file, size, compactRetryBytes, e);
            return;
        }
        if (fsync) {
            forceDirectory();
        }
        // The file is now the snapshot: the old channel names the replaced file, so a failure here is fatal.
        FileChannel reopened = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileChannel old = channel;
        channel = reopened;
        size = written;
        lastCompactedBytes = written;
        compactRetryBytes = 0;
        try {
            old.close();
        } catch (IOException e) {
            LOG.debug("cannot close the replaced acceptor log channel of {}: {}", file, e.toString());
        }
        LOG.debug("compacted acceptor log {} from {} to {} bytes", file, before, written);
    }

    /**
     * The storage's current state as a whole log (magic, then records), encoded by {@link #append} into a
     * fresh buffer; {@code pending} (empty here) is restored even if encoding fails.
     */
    private ByteBuffer snapshot() {
        ByteBuffer saved = pending;
        int savedRecordStart = recordStart;
        pending = ByteBuffer.allocate(4096);
        try {
            pending.put(MAGIC);
            append(storage.asChanges());
            return pending.flip();
        } finally {
            pending = saved;
            recordStart = savedRecordStart;
        }
    }

    /** For tests: called between writing the compacted file and renaming it over the log. */
    interface CompactHook {
        CompactHook NONE = tmp -> { };

        void beforeRename(Path tmp) throws IOException;
    }

    private CompactHook compactHook = CompactHook.NONE;

    /** For tests: sets {@code hook} to run before each compaction's rename (to make it fail). Owner thread only. */
    void compactHook(CompactHook hook) {
        this.compactHook = Objects.requireNonNull(hook, "hook");
    }

    private void forceDirectory() {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory; the rename is still atomic, only its durability on a
            // machine crash is weaker there.
            LOG.debug("cannot force directory {}: {}", dir, e.toString());
        }
    }

    // ------------------------------------------------------------------------------------ replay

    private void replay() throws IOException {
        long fileSize = channel.size();
        if (fileSize < MAGIC.length) {
            // Empty, or the creation itself was torn: nothing was ever recorded.
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(MAGIC), 0);
            if (fsync) {
                channel.force(true);
                forceDirectory();
            }
            size = MAGIC.length;
            return;
        }
        ByteBuffer magic = readFully(0, MAGIC.length);
        if (!Arrays.equals(magic.array(), MAGIC)) {
            throw new IOException("acceptor log " + file + " is damaged at offset 0: not an acceptor log (bad magic)");
        }
        long pos = MAGIC.length;
        while (pos < fileSize) {
            long left = fileSize - pos;
            if (left < HEADER_BYTES) {
                truncateTorn(pos, fileSize, "an incomplete record header");
                return;
            }
            ByteBuffer header = readFully(pos, HEADER_BYTES);
            int length = header.getInt(0);
            int lengthCrc = header.getInt(4);
            int bodyCrc = header.getInt(8);
            if (lengthCrc != crc(header.array(), 0, 4) || length < 1 || length > MAX_BODY_BYTES) {
                if (isZeros(pos, fileSize)) {
                    truncateTorn(pos, fileSize, "a tail of zero bytes");
                    return;
                }
                throw damaged(pos, "bad record length " + length);
            }
            if (left < HEADER_BYTES + (long) length) {
                truncateTorn(pos, fileSize, "a record of " + length + " bytes that the file ends inside");
                return;
            }
            ByteBuffer body = readFully(pos + HEADER_BYTES, length);
            if (crc(body.array(), 0, length) != bodyCrc) {
                if (pos + HEADER_BYTES + length == fileSize) {
                    truncateTorn(pos, fileSize, "a last record with a bad checksum");
                    return;
                }
                throw damaged(pos, "record checksum mismatch");
            }
            try {
                storage.restore(decode(body));
            } catch (RuntimeException e) {
                throw damaged(pos, e.getMessage());
            }
            pos += HEADER_BYTES + length;
        }
        size = pos;
    }

    private static StorageChange decode(ByteBuffer b) {
        byte type = b.get();
        StorageChange change = switch (type) {
            case PROMISE -> new StorageChange.Promised(getBallot(b));
            case VOTE -> {
                long instance = b.getLong();
                Ballot ballot = getBallot(b);
                yield new StorageChange.Voted(instance, ballot, getValue(b));
            }
            case DECIDE -> {
                long instance = b.getLong();
                yield new StorageChange.Decided(instance, getValue(b));
            }
            case TRIM -> new StorageChange.Trimmed(b.getLong());
            default -> throw new IllegalArgumentException("unknown record type " + type);
        };
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the record's fields");
        }
        return change;
    }

    private static Ballot getBallot(ByteBuffer b) {
        return new Ballot(b.getLong(), b.getInt());
    }

    private static Value getValue(ByteBuffer b) {
        int proposer = b.getInt();
        long seq = b.getLong();
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
            throw new IllegalArgumentException("value length " + length + " with " + b.remaining() + " bytes left");
        }
        byte[] data = new byte[length];
        b.get(data);
        ProposalId id = new ProposalId(proposer, seq);
        return id.equals(ProposalId.NOOP) && length == 0 ? Value.NOOP : new Value(id, data);
    }

    private IOException damaged(long offset, String why) {
        return new IOException("acceptor log " + file + " is damaged at offset " + offset + ": " + why
                + "; refusing to open it (an acceptor that forgot a promise or vote would break Paxos safety)");
    }

    private void truncateTorn(long pos, long fileSize, String what) throws IOException {
        LOG.warn("acceptor log {}: cutting off {} bytes at offset {} ({}), left by a crash during a write",
                file, fileSize - pos, pos, what);
        channel.truncate(pos);
        if (fsync) {
            channel.force(true);
        }
        size = pos;
    }

    private boolean isZeros(long from, long to) throws IOException {
        long pos = from;
        while (pos < to) {
            int n = (int) Math.min(64 * 1024, to - pos);
            ByteBuffer b = readFully(pos, n);
            for (int i = 0; i < n; i++) {
                if (b.get(i) != 0) {
                    return false;
                }
            }
            pos += n;
        }
        return true;
    }

    private ByteBuffer readFully(long pos, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            int r = channel.read(b, pos + b.position());
            if (r < 0) {
                throw new IOException("acceptor log " + file + " ended at offset " + (pos + b.position()) + " while reading");
            }
        }
        b.flip();
        return b;
    }

    // ------------------------------------------------------------------------------------ close

    /** Writes what is buffered, then closes the file and releases the directory's lock. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            flush();
        } finally {
            closed = true;
            try {
                channel.close();
            } catch (IOException e) {
                LOG.warn("closing acceptor log {}: {}", file, e.toString());
            }
            try {
                lock.release();
                lockChannel.close();
            } catch (IOException e) {
                LOG.warn("releasing the lock of acceptor log {}: {}", file, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "FileAcceptorLog[" + file + ", " + size + " bytes" + (fsync ? ", fsync" : "") + "]";
    }
}
