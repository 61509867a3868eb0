package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.ratis.BatchCodec;
import io.psmr.ordering.ratis.Outcome;
import io.psmr.ordering.ratis.PsmrStateMachine;
import io.psmr.ordering.ratis.Snapshotter;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.Scheduler;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worked example of docs/integration.md, built outside psmr: counters executed by psmr behind one Ratis peer. */
class RatisAdapterTest {

    record Add(String name, long amount) implements Command {
        public int keyCount() { return 1; }
        public byte[] key(int i) { return name.getBytes(StandardCharsets.UTF_8); }
        public boolean writes(int i) { return true; }
    }

    /** An entry is "name=amount;name=amount..."; the reply lists each counter's new value. */
    static final class Counters implements BatchCodec<Add, Long>, Snapshotter {
        static final ConflictDetection DETECTION = ConflictDetection.bitmap(1 << 16);
        final Map<String, Long> state = new ConcurrentHashMap<>();

        Long add(Add a) {
            return state.merge(a.name(), a.amount(), Long::sum);
        }

        public Decoded<Add> decode(long index, byte[] entry) {
            List<Add> adds = new ArrayList<>();
            for (String part : new String(entry, StandardCharsets.UTF_8).split(";")) {
                String[] kv = part.split("=");
                if (kv.length != 2 || !kv[1].matches("\\d{1,9}")) {
                    return Decoded.refuse(("malformed: " + part).getBytes(StandardCharsets.UTF_8));
                }
                adds.add(new Add(kv[0], Long.parseLong(kv[1])));
            }
            return Decoded.execute(Batch.of(index, adds, DETECTION));
        }

        public CompletableFuture<byte[]> reply(Batch<Add> batch, List<Outcome<Long>> outcomes) {
            StringBuilder b = new StringBuilder();
            for (Outcome<Long> o : outcomes) {
                b.append(b.length() == 0 ? "" : ",").append(o.ok() ? o.result().toString() : "error");
            }
            return CompletableFuture.completedFuture(b.toString().getBytes(StandardCharsets.UTF_8));
        }

        public void save(OutputStream os) throws java.io.IOException {
            DataOutputStream out = new DataOutputStream(os);
            Map<String, Long> sorted = new TreeMap<>(state);
            out.writeInt(sorted.size());
            for (Map.Entry<String, Long> e : sorted.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue());
            }
            out.flush();
        }

        public void restore(InputStream is) throws java.io.IOException {
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
    void psmrExecutesTheLogOfARatisPeer() throws Exception {
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
        Counters app = new Counters();
        PsmrStateMachine<Add, Long> psmr = new PsmrStateMachine<>(
                Scheduler.builder(app::add).detection(Counters.DETECTION).workers(2), app, app);
        try (RaftServer server = RaftServer.newBuilder().setServerId(peer.getId()).setGroup(group)
                .setProperties(props).setStateMachine(psmr).build()) {
            server.start();
            try (RaftClient client = RaftClient.newBuilder().setProperties(props).setRaftGroup(group).build()) {
                Map<String, Long> expected = new TreeMap<>();
                List<CompletableFuture<RaftClientReply>> replies = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    String entry = "c" + (i % 3) + "=" + i + ";d" + (i % 5) + "=1";
                    expected.merge("c" + (i % 3), (long) i, Long::sum);
                    expected.merge("d" + (i % 5), 1L, Long::sum);
                    replies.add(client.async().send(Message.valueOf(ByteString.copyFromUtf8(entry))));
                }
                for (CompletableFuture<RaftClientReply> r : replies) {
                    RaftClientReply reply = r.get(30, TimeUnit.SECONDS);
                    assertTrue(reply.isSuccess(), reply.toString());
                    assertEquals(2, reply.getMessage().getContent().toStringUtf8().split(",").length, reply.toString());
                }
                RaftClientReply bad = client.io().send(Message.valueOf(ByteString.copyFromUtf8("c1=lots")));
                assertEquals("malformed: c1=lots", bad.getMessage().getContent().toStringUtf8());
                assertEquals(expected, new TreeMap<>(app.state));
            }
        }
    }

    @Test
    void theAdapterBringsNeitherRingPaxosNorPbftNorTheirNettyTransport() {
        ClassLoader loader = RatisAdapterTest.class.getClassLoader();
        // Jars carry their directories as entries, so a package that is present is found this way.
        assertNotNull(loader.getResource("io/psmr/ordering/ratis/"), "the adapter's own package");
        for (String absent : List.of("io/psmr/ordering/ringpaxos/", "io/psmr/ordering/pbft/",
                "io/psmr/ordering/transport/", "io/psmr/kvstore/", "io/netty/channel/")) {
            assertNull(loader.getResource(absent), absent + " is on the classpath of psmr-ordering-ratis");
        }
        for (String absent : List.of("io.netty.channel.Channel", "io.netty.bootstrap.Bootstrap")) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(absent), absent);
        }
    }
}
