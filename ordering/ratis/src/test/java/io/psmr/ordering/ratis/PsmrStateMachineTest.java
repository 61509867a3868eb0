package io.psmr.ordering.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.Scheduler;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adapter with a service of its own, not the key-value store: a map of counters, each entry a
 * batch of "add delta to key" commands, on a one-peer Ratis group. What integration.md describes:
 * a codec, a snapshotter, a scheduler builder. Checks replies, the final state against sequential
 * execution, the applied index through a query, and a restart from a snapshot.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PsmrStateMachineTest {

    /** Adds {@code delta} to counter {@code key}; conflicts on the key. */
    record Add(String key, long delta) implements Command {
        public int keyCount() {
            return 1;
        }

        public byte[] key(int i) {
            return key.getBytes(StandardCharsets.UTF_8);
        }

        public boolean writes(int i) {
            return true;
        }
    }

    /** The application: counters, and how entries, replies and snapshots look. */
    static final class Counters implements BatchCodec<Add, Long>, Snapshotter {
        final Map<String, Long> state = new ConcurrentHashMap<>();

        Long add(Add a) {
            return state.merge(a.key(), a.delta(), Long::sum);
        }

        @Override
        public Decoded<Add> decode(long index, byte[] entry) {
            String text = new String(entry, StandardCharsets.UTF_8);
            // "!..." makes a batch the scheduler (exact keys) refuses: its summary is a bitmap.
            boolean misfit = text.startsWith("!");
            List<Add> adds = new ArrayList<>();
            for (String part : text.substring(misfit ? 1 : 0).split(";")) {
                String[] kv = part.split("=");
                if (kv.length != 2 || !kv[1].matches("-?\\d{1,9}")) {
                    return Decoded.refuse(("refused: " + part).getBytes(StandardCharsets.UTF_8));
                }
                adds.add(new Add(kv[0], Long.parseLong(kv[1])));
            }
            return Decoded.execute(Batch.of(index, adds, misfit ? ConflictDetection.bitmap(64) : ConflictDetection.keysHashed()));
        }

        @Override
        public byte[] refusal(Batch<Add> batch, String reason) {
            return ("scheduler refused: " + reason).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public CompletableFuture<byte[]> reply(Batch<Add> batch, List<Outcome<Long>> outcomes) {
            StringBuilder b = new StringBuilder();
            for (Outcome<Long> o : outcomes) {
                b.append(b.length() == 0 ? "" : ",").append(o.ok() ? o.result().toString() : "error");
            }
            return CompletableFuture.completedFuture(b.toString().getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void save(OutputStream os) throws IOException {
            DataOutputStream out = new DataOutputStream(os);
            Map<String, Long> sorted = new TreeMap<>(state);
            out.writeInt(sorted.size());
            for (Map.Entry<String, Long> e : sorted.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue());
            }
            out.flush();
        }

        @Override
        public void restore(InputStream is) throws IOException {
            DataInputStream in = new DataInputStream(is);
            state.clear();
            for (int n = in.readInt(); n > 0; n--) {
                state.put(in.readUTF(), in.readLong());
            }
        }
    }

    @TempDir
    Path dir;

    @Test
    void aServiceOfItsOwnRunsBehindRatisAndRestartsFromASnapshot() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        System.out.println("PsmrStateMachineTest seed " + seed);
        Random rnd = new Random(seed);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        RaftPeer peer = RaftPeer.newBuilder().setId("solo").setAddress(new InetSocketAddress("127.0.0.1", port)).build();
        RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), peer);
        RaftProperties props = new RaftProperties();
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.NETTY);
        NettyConfigKeys.Server.setPort(props, port);
        RaftServerConfigKeys.setStorageDir(props, List.of(dir.toFile()));
        RaftServerConfigKeys.Snapshot.setCreationGap(props, 1); // by default Ratis skips snapshots under 1,024 entries

        Map<String, Long> expected = new TreeMap<>();
        Counters app = new Counters();
        RaftServer server = start(peer, group, props, app, RaftStorage.StartupOption.FORMAT);
        long snapshotIndex;
        try (RaftClient client = RaftClient.newBuilder().setProperties(props).setRaftGroup(group).build()) {
            List<CompletableFuture<RaftClientReply>> replies = new ArrayList<>();
            List<String> entries = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                StringBuilder e = new StringBuilder();
                for (int c = 0; c < 1 + rnd.nextInt(4); c++) {
                    String key = "c" + rnd.nextInt(5);
                    long delta = rnd.nextInt(100);
                    e.append(c == 0 ? "" : ";").append(key).append('=').append(delta);
                    expected.merge(key, delta, Long::sum);
                }
                entries.add(e.toString());
                replies.add(client.async().send(Message.valueOf(ByteString.copyFromUtf8(e.toString()))));
            }
            RaftClientReply refused = client.io().send(Message.valueOf(ByteString.copyFromUtf8("c1=lots")));
            assertEquals("refused: c1=lots", refused.getMessage().getContent().toStringUtf8());
            // Refused by the scheduler, not the codec: the codec's refusal reply says why, and nothing runs.
            RaftClientReply misfit = client.io().send(Message.valueOf(ByteString.copyFromUtf8("!c1=5")));
            assertTrue(misfit.isSuccess(), "a refusal is a reply, not a failure: " + misfit);
            String why = misfit.getMessage().getContent().toStringUtf8();
            assertTrue(why.startsWith("scheduler refused: conflict summary mode"), why);
            long last = misfit.getLogIndex();
            for (int i = 0; i < replies.size(); i++) {
                RaftClientReply r = replies.get(i).get(30, TimeUnit.SECONDS);
                assertTrue(r.isSuccess(), "entry " + i + ": " + r);
                assertEquals(entries.get(i).split(";").length, r.getMessage().getContent().toStringUtf8().split(",").length);
            }
            assertEquals(expected, new TreeMap<>(app.state), "the parallel result equals sequential execution, seed " + seed);
            long applied = ByteBuffer.wrap(client.io().sendReadOnly(Message.EMPTY).getMessage().getContent().toByteArray())
                    .getLong();
            assertTrue(applied >= last, "the query answers the applied index " + applied + " >= " + last);
            snapshotIndex = client.getSnapshotManagementApi(peer.getId()).create(10_000).getLogIndex();
            assertTrue(snapshotIndex >= last, "snapshot at " + snapshotIndex);
        } finally {
            server.close();
        }

        // A fresh application, restarted from the storage: the snapshot brings the counters back.
        Counters again = new Counters();
        RaftServer restarted = start(peer, group, props, again, RaftStorage.StartupOption.RECOVER);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!expected.equals(new TreeMap<>(again.state)) && System.nanoTime() < deadline) {
                Thread.sleep(10); // the group may finish initialising on a Ratis thread
            }
            assertEquals(expected, new TreeMap<>(again.state), "restored from the snapshot, seed " + seed);
        } finally {
            restarted.close();
        }
    }

    private static RaftServer start(RaftPeer peer, RaftGroup group, RaftProperties props, Counters app,
                                    RaftStorage.StartupOption option) throws IOException {
        PsmrStateMachine<Add, Long> sm = new PsmrStateMachine<>(
                Scheduler.builder(app::add).detection(ConflictDetection.keysHashed()).workers(2), app, app);
        RaftServer server = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(peer.getId().toString()))
                .setGroup(group).setProperties(props).setStateMachine(sm).setOption(option).build();
        server.start();
        return server;
    }
}
