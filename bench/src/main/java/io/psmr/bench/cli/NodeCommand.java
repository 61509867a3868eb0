package io.psmr.bench.cli;

import io.psmr.kvstore.cluster.NodeHost;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr node --dir DIR --name NAME}: runs one node of the cluster described by
 * {@code DIR/cluster.json} in the foreground ({@link NodeHost}), until it is terminated: what
 * {@code cluster start} and {@code cluster restart} launch for each node, here by hand (for example
 * under a debugger) in place of a node that was killed.
 */
@Command(name = "node",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run one node (acceptor, replica or Ratis peer) of a process cluster in the foreground.",
            "What ./psmr cluster start launches for each node. Docs: docs/ringpaxos.md (Running a cluster of processes), docs/integration.md (Ratis)."})
public final class NodeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", required = true, description = "The cluster directory (holds cluster.json).")
    Path dir;

    @Option(names = "--name", paramLabel = "NAME", required = true, description = "The node to run, as named in cluster.json.")
    String name;

    @Option(names = "--metrics-port", paramLabel = "P",
            description = "Serve Prometheus metrics at GET /metrics on the cluster's host and this port (0: any free port, "
                    + "published in status/NAME.json). Default: no endpoint. Docs: docs/metrics.md.")
    Integer metricsPort;

    @Override
    public Integer call() throws Exception {
        try {
            int port = metricsPort == null ? NodeHost.NO_METRICS
                    : io.psmr.ordering.metrics.PrometheusEndpoint.checkPort(metricsPort);
            return NodeHost.run(dir, name, port);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
