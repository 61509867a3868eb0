package io.psmr.bench.cli;

import io.psmr.kvstore.cluster.OrderingBinding;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.ordering.node.NodeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code cluster status --format json}: one object with the cluster directory ({@code dir}), its
 * {@code ordering}, {@code healthy} (every node of this machine serves), the {@code leader}
 * (the coordinating acceptor, Ratis leader or PBFT primary of pillar 0; null when none) and
 * {@code nodes}, each with {@code name}, {@code role}, {@code host}, {@code pid}, {@code port},
 * {@code reply_port}, {@code metrics_port}, {@code state} (as the table says it), {@code serving},
 * {@code instance} and {@code digest} (a replica's, hex), {@code failure} and {@code byzantine}
 * (the mode of a PBFT replica Byzantine on purpose); a value not known is null. Immutable once built.
 */
final class ClusterStatusJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ObjectNode root;
    private final List<String> notServing;

    private ClusterStatusJson(ObjectNode root, List<String> notServing) {
        this.root = root;
        this.notServing = List.copyOf(notServing);
    }

    /** Reads the cluster's descriptor and every node's status now; called on the command's thread. */
    static ClusterStatusJson of(ClusterLauncher launcher) {
        ClusterDescriptor described = launcher.directory().read();
        OrderingBinding binding = described.binding();
        List<String> down = new ArrayList<>();
        ObjectNode root = JSON.createObjectNode();
        root.put("dir", launcher.directory().path().toString());
        root.put("ordering", described.ordering().cliName());
        ArrayNode nodes = JSON.createArrayNode();
        for (ClusterLauncher.NodeView v : launcher.status()) {
            ClusterNode n = v.node();
            NodeStatus s = v.status();
            String state = ClusterCommand.state(v, binding);
            boolean serving = ClusterCommand.serving(state);
            if (!serving) {
                down.add(n.name() + " (" + state + ")");
            }
            ObjectNode node = nodes.addObject();
            node.put("name", n.name());
            node.put("role", n.role().cliName());
            node.put("host", n.host());
            putOrNull(node, "pid", n.pid());
            node.put("port", n.port());
            putOrNull(node, "reply_port", n.replyPort() > 0 ? n.replyPort() : null);
            putOrNull(node, "metrics_port", s != null && s.metricsPort() > 0 ? s.metricsPort() : null);
            node.put("state", state);
            node.put("serving", serving);
            putOrNull(node, "instance", n.role() == NodeRole.REPLICA && s != null ? s.instance() : null);
            node.put("digest", s != null && s.digest() != null ? String.format(Locale.ROOT, "%016x", s.digest()) : null);
            node.put("failure", s != null ? s.failure() : null);
            node.put("byzantine", described.pbft() != null ? described.pbft().byzantineMode(n.name()).map(m -> m.cliName()).orElse(null) : null);
        }
        root.put("healthy", down.isEmpty());
        root.put("leader", launcher.leader().orElse(null));
        root.set("nodes", nodes);
        return new ClusterStatusJson(root, down);
    }

    private static void putOrNull(ObjectNode node, String field, Number value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value.longValue());
        }
    }

    /** The nodes of this machine that do not serve, as "NAME (STATE)"; empty when healthy. */
    List<String> notServing() {
        return notServing;
    }

    /** The object on one line. */
    String toJson() {
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the status as JSON: " + e.getMessage(), e);
        }
    }
}
