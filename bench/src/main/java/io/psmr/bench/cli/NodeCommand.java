package io.psmr.bench.cli;

import io.psmr.kvstore.cluster.HandStartedNode;
import io.psmr.kvstore.cluster.NodeHost;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr node --dir DIR --name NAME} or {@code psmr node --cluster FILE --name NAME}: runs one node of
 * the cluster described by {@code DIR/cluster.json} (or FILE, a cluster.json whose directory then holds the
 * node's {@code data/} and {@code status/}) in the foreground ({@link NodeHost}), until it is terminated: what
 * {@code cluster start} and {@code cluster restart} launch for each node, here by hand (for example under a
 * debugger, or on its own machine for a cluster made by {@code cluster init}).
 */
@Command(name = "node",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run one node (acceptor, replica, Ratis peer or PBFT replica) of a process cluster in the foreground.",
            "What ./psmr cluster start launches for each node. Docs: docs/ringpaxos.md (Running a cluster of processes), docs/integration.md (Ratis)."})
public final class NodeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "The cluster directory (holds cluster.json).")
    Path dir;

    @Option(names = "--cluster", paramLabel = "FILE", description = {
        "A cluster.json (from ./psmr cluster init, copied to this machine); the node keeps data/ and status/ in its directory.",
        "Exactly one of --dir and --cluster."})
    Path clusterFile;

    @Option(names = "--name", paramLabel = "NAME", required = true, description = "The node to run, as named in cluster.json.")
    String name;

    @Option(names = "--metrics-port", paramLabel = "P",
            description = "Serve Prometheus metrics at GET /metrics on the cluster's host and this port (0: any free port, "
                    + "published in status/NAME.json). Default: no endpoint. Docs: docs/metrics.md.")
    Integer metricsPort;

    @Override
    public Integer call() throws Exception {
        if ((dir == null) == (clusterFile == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), dir == null
                    ? "give the node's cluster: --dir DIR or --cluster FILE"
                    : "give --dir DIR or --cluster FILE, not both");
        }
        try {
            int port = metricsPort == null ? NodeHost.NO_METRICS
                    : io.psmr.ordering.metrics.PrometheusEndpoint.checkPort(metricsPort);
            if (dir != null) {
                return NodeHost.run(dir, name, port);
            }
            Path own = HandStartedNode.directoryOf(clusterFile);
            try (HandStartedNode registered = HandStartedNode.register(own, name)) {
                return NodeHost.run(own, name, port);
            }
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            throw new CommandLine.ParameterException(spec.commandLine(), clusterFile != null && message.startsWith("--dir: ")
                    ? "--cluster: " + message.substring("--dir: ".length()) : message);
        }
    }
}
