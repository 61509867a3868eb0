package io.psmr.kvstore.pbft;

import io.psmr.kvstore.HeapKvStore;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.ReplicaCheckpointState;
import io.psmr.kvstore.StoreConfig;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointInstaller;
import io.psmr.kvstore.checkpoint.CheckpointServer;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.kvstore.checkpoint.SnapshottingStore;
import io.psmr.ordering.pbft.ApplicationCheckpoints;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.pbft.PbftResumeState;
import io.psmr.ordering.pbft.RequestDeduplicator;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PBFT state transfer over real checkpoint servers on loopback: a checkpoint is installed only when the digest
 * recomputed from its files is the one a stable checkpoint certified; a peer serving other state is named, its files
 * deleted, and the next peer tried. Also the digest coupling of {@link PbftCheckpoints}: what the store's checkpoint
 * hook hands the execution agent to certify.
 */
class PbftStateTransferTest {

    static final StoreConfig SIZING = StoreConfig.defaults().sized(5_000, 8, 48);
    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    static final long INSTANCE = 64;
    static final long SEQ = 77;

    @TempDir
    Path tmp;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    static byte[] resume() {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(table)) {
            RequestDeduplicator d = new RequestDeduplicator(16, 4);
            d.firstRelease(3, 1);
            d.firstRelease(3, 2);
            d.writeTo(out);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return new PbftResumeState(SEQ + 1, INSTANCE + 1, new byte[32], table.toByteArray()).toBytes();
    }

    static byte[] state(byte[] ordering) {
        return new ReplicaCheckpointState(INSTANCE, new byte[] {1, 2}, new byte[] {3}, ordering).toBytes();
    }

    /** A replica's checkpoint store with its checkpoint at INSTANCE of a store written from {@code seed}. */
    CheckpointStore replica(String name, long seed) throws Exception {
        CheckpointStore cs = CheckpointStore.open(tmp.resolve(name), 2);
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 1 << 20)) {
            Random r = new Random(seed);
            for (int i = 0; i < 300; i++) {
                byte[] v = new byte[1 + r.nextInt(40)];
                r.nextBytes(v);
                store.put(ByteBuffer.allocate(8).putInt(0x6b657900).putInt(r.nextInt(1000)).array(), v);
            }
            cs.take(INSTANCE, store, state(resume())).get(30, TimeUnit.SECONDS);
        }
        return cs;
    }

    InetSocketAddress serve(CheckpointStore cs) throws IOException {
        CheckpointServer s = CheckpointServer.start(cs, LOOPBACK, 2);
        closing.add(0, s);
        return s.address();
    }

    /** A transfer into {@code local}, staging fetched checkpoints in {@link #staging} of the same replica directory. */
    PbftStateTransfer transfer(CheckpointStore local) throws IOException {
        CheckpointStore staging = staging(local);
        CheckpointFetcher f = new CheckpointFetcher(staging, Duration.ofSeconds(2), Duration.ofSeconds(5), 64 << 20);
        closing.add(0, f);
        return new PbftStateTransfer(f, staging, local);
    }

    /** The staging store next to {@code local}, as the replica runtime opens it (emptying it). */
    static CheckpointStore staging(CheckpointStore local) throws IOException {
        return PbftStateTransfer.openStaging(local.directory().getParent(), "local");
    }

    /** Whether the staging store next to {@code local} holds no checkpoint, read without opening (emptying) it. */
    static boolean nothingStaged(CheckpointStore local) throws IOException {
        return CheckpointStore.latestIn(local.directory().getParent().resolve("uncertified").resolve("checkpoints")).isEmpty();
    }

    static String name(InetSocketAddress a) {
        return "peer " + a.getHostString() + ":" + a.getPort();
    }

    @Test
    void theCertificationIsTheSequenceNumberInTheResumeStateAndTheDigestOfStoreDigestAndStateBin() throws Exception {
        CheckpointStore honest = replica("a", 1);
        Checkpoint c = honest.open(INSTANCE);
        PbftCheckpoints.Certification cert = PbftCheckpoints.certification(c);
        assertEquals(INSTANCE, cert.instance());
        assertEquals(SEQ, cert.seq());
        assertArrayEquals(ApplicationCheckpoints.digest(c.storeDigest(), c.readState()), cert.digest());
        assertArrayEquals(cert.digest(), PbftCheckpoints.certification(replica("b", 1).open(INSTANCE)).digest(),
                "the same state on two replicas: the same digest");
        assertFalse(java.util.Arrays.equals(cert.digest(),
                PbftCheckpoints.certification(replica("c", 2).open(INSTANCE)).digest()), "another store: another digest");

        // The hook: the agent's resume state goes into state.bin, and the durable checkpoint comes back as (s, D).
        List<StableCheckpoint> transfers = new ArrayList<>();
        PbftCheckpoints bridge = new PbftCheckpoints(INSTANCE, 4, honest, transfers::add);
        bridge.resumeState(INSTANCE, PbftResumeState.fromBytes(resume()));
        assertArrayEquals(resume(), bridge.orderingState(INSTANCE));
        IllegalStateException none = assertThrows(IllegalStateException.class, () -> bridge.orderingState(2 * INSTANCE));
        assertEquals("no PBFT resume state was recorded for checkpoint instance 128", none.getMessage());
        assertNull(bridge.pollDurable());
        bridge.checkpointed(INSTANCE);
        ApplicationCheckpoints.Durable d = bridge.pollDurable();
        assertEquals(SEQ, d.seq());
        assertArrayEquals(cert.digest(), d.digest());
    }

    @Test
    void installsOnlyTheCertifiedStateNamingAPeerThatServesAnotherAndTryingTheNext() throws Exception {
        CheckpointStore honest = replica("honest", 1);
        CheckpointStore liar = replica("liar", 2); // same instance and sequence number, other store contents
        byte[] certifiedDigest = PbftCheckpoints.certification(honest.open(INSTANCE)).digest();
        StableCheckpoint stable = new StableCheckpoint(SEQ, certifiedDigest, List.of());
        Map<Long, StableCheckpoint> certified = Map.of(SEQ, stable);
        InetSocketAddress h = serve(honest);
        InetSocketAddress l = serve(liar);
        CheckpointStore local = CheckpointStore.open(tmp.resolve("local"), 2);
        PbftStateTransfer t = transfer(local);

        IOException refused = assertThrows(IOException.class, () -> t.fetch(List.of(l), 1, certified::get));
        assertTrue(refused.getMessage().startsWith("no peer served a certified checkpoint from instance 1: " + name(l)
                + " served a checkpoint that does not match the certified one: checkpoint 64 at sequence number 77 has"
                + " digest "), refused.getMessage());
        assertTrue(local.list().isEmpty(), "the mismatching checkpoint never reaches the local store: " + local.list());
        assertTrue(nothingStaged(local), "the mismatching checkpoint's files are deleted");

        PbftStateTransfer.Verified v = t.fetch(List.of(l, h), 1, certified::get);
        assertEquals(h, v.peer());
        assertEquals(stable, v.certificate());
        assertEquals(List.of(INSTANCE), local.list(), "the certified checkpoint is moved into the local store");
        assertEquals(local.directory(INSTANCE), v.checkpoint().directory());
        assertTrue(nothingStaged(local), "and out of the staging store");
        try (KvStore liveHonest = CheckpointInstaller.install(honest.open(INSTANCE), SIZING.persistedTo(tmp.resolve("h.cm")),
                false).store()) {
            InstalledCheckpoint installed = CheckpointInstaller.install(v.checkpoint(),
                    SIZING.persistedTo(tmp.resolve("installed.cm")), false);
            try (KvStore s = installed.store()) {
                assertEquals(liveHonest.digest(), s.digest(), "the installed store is the honest one");
            }
        }
    }

    @Test
    void aCheckpointWithoutAKnownCertificateIsNotInstalled() throws Exception {
        InetSocketAddress h = serve(replica("honest", 1));
        CheckpointStore local = CheckpointStore.open(tmp.resolve("local"), 2);
        IOException e = assertThrows(IOException.class, () -> transfer(local).fetch(List.of(h), 1, s -> null));
        assertEquals("no peer served a certified checkpoint from instance 1: " + name(h) + ": checkpoint 64 at sequence"
                + " number 77 is not certified by a stable checkpoint known here yet", e.getMessage());
        assertTrue(local.list().isEmpty());
        assertTrue(nothingStaged(local), "the uncertified checkpoint's files are deleted");
        IOException old = assertThrows(IOException.class, () -> transfer(local).fetch(List.of(h), 65, s -> null));
        assertEquals("no peer served a certified checkpoint from instance 65: " + name(h)
                + " has no checkpoint at or after instance 65", old.getMessage());
    }
}
