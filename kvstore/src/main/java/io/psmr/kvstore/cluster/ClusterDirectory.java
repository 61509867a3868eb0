package io.psmr.kvstore.cluster;

import io.psmr.ordering.node.NodeStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The directory of a process cluster and what lives in it:
 * <pre>
 * DIR/cluster.json          the {@link ClusterDescriptor}
 * DIR/cluster.lock          held while cluster.json is read, changed and written
 * DIR/sessions              the last load session number handed out
 * DIR/status/NAME.json      each node's {@link NodeStatus}, rewritten by the node
 * DIR/logs/NAME.log         each node's standard output and error
 * DIR/data/NAME/            each acceptor's durable log
 * DIR/proposers/ID.lock     held by the load process that uses proposer slot ID
 * </pre>
 * Changes go through {@link #update} under an exclusive file lock, so concurrent {@code cluster}
 * commands do not lose each other's pid updates.
 */
public final class ClusterDirectory {

    private static final ConcurrentHashMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

    private final Path dir;

    /** The cluster directory {@code dir} (it need not exist yet). */
    public ClusterDirectory(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    /** The directory. */
    public Path path() {
        return dir;
    }

    /** Reads {@code cluster.json}; see {@link ClusterDescriptor#read}. */
    public ClusterDescriptor read() {
        return ClusterDescriptor.read(dir);
    }

    /** Whether a cluster.json exists here. */
    public boolean exists() {
        return Files.exists(dir.resolve(ClusterDescriptor.FILE));
    }

    /** Writes a new cluster.json under the lock (creating the directory). */
    public void create(ClusterDescriptor descriptor) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        locked(() -> {
            descriptor.write(dir);
            return null;
        });
    }

    /** Reads, changes and writes cluster.json under the lock; returns what was written. */
    public ClusterDescriptor update(UnaryOperator<ClusterDescriptor> change) {
        return locked(() -> {
            ClusterDescriptor next = change.apply(read());
            next.write(dir);
            return next;
        });
    }

    /**
     * Hands out the next load session number (1, 2, …), under the lock. A session number makes a
     * load process's proxy id and its proposer's first sequence number unique across runs, which
     * the replicas' reply caches and the learners' duplicate filters rely on.
     */
    public long nextSession() {
        return locked(() -> {
            Path file = dir.resolve("sessions");
            long last = Files.exists(file) ? Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim()) : 0;
            Files.writeString(file, Long.toString(last + 1), StandardCharsets.US_ASCII);
            return last + 1;
        });
    }

    /**
     * {@code DIR/metrics}: present when the cluster's nodes serve Prometheus endpoints on ephemeral ports
     * ({@code cluster start --metrics}); a node restarted or resumed serves one again.
     */
    public Path metricsMarker() {
        return path().resolve("metrics");
    }

    /** Where node {@code name} writes its status. */
    public Path statusFile(String name) {
        return dir.resolve("status").resolve(name + ".json");
    }

    /** Where node {@code name}'s output goes. */
    public Path logFile(String name) {
        return dir.resolve("logs").resolve(name + ".log");
    }

    /**
     * Testing only: the file that cues dormant Byzantine PBFT replica {@code name} to act in its mode
     * ({@link ClusterLauncher#cueByzantine}).
     */
    public Path byzantineCue(String name) {
        return dir.resolve("cues").resolve(name + ".byzantine");
    }

    /** Where a PBFT cluster's key files lie ({@code DIR/keys}, one {@code replica-<id>.keys} per replica). */
    public Path keysDir() {
        return path().resolve("keys");
    }

    /** Where node {@code name} keeps durable data. */
    public Path dataDir(String name) {
        return dir.resolve("data").resolve(name);
    }

    /** The lock file of proposer slot {@code paxosId}. */
    public Path proposerLock(int paxosId) {
        return dir.resolve("proposers").resolve(paxosId + ".lock");
    }

    private interface IoAction<T> {
        T run() throws IOException;
    }

    private <T> T locked(IoAction<T> action) {
        Path lockFile = dir.resolve("cluster.lock");
        // A file lock excludes other processes only; threads of this JVM (a test's killer thread,
        // a load beside a launcher) queue on a lock per directory first.
        ReentrantLock inJvm = IN_JVM.computeIfAbsent(dir, d -> new ReentrantLock());
        inJvm.lock();
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = ch.lock()) {
            return action.run();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot update the cluster in " + dir + ": " + e.getMessage(), e);
        } finally {
            inJvm.unlock();
        }
    }
}
