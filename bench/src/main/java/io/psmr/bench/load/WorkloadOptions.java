package io.psmr.bench.load;

import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The closed-loop clients' options, the same in {@code psmr load} and {@code psmr bench e2e}:
 * {@code --clients}, {@code --keys}, {@code --read-fraction}, {@code --multi-put-fraction},
 * {@code --multi-put-keys} and {@code --value-size}. A picocli {@code @Mixin}; read on the
 * command's thread.
 */
public final class WorkloadOptions {

    static final int MAX_CLIENTS = 10_000;
    static final int MAX_KEYS = 100_000_000;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "64",
            description = "Closed-loop clients, one thread each, 1 to " + MAX_CLIENTS + " (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "10000",
            description = "Key space, 1 to " + MAX_KEYS + " (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--read-fraction", paramLabel = "F", defaultValue = "0.5",
            description = "Fraction of operations that are READs, 0 to 1 (default: ${DEFAULT-VALUE}).")
    double readFraction;

    @Option(names = "--multi-put-fraction", paramLabel = "F", defaultValue = "0.05",
            description = "Fraction of operations that are MULTI_PUTs, 0 to 1 (default: ${DEFAULT-VALUE}); "
                    + "the rest are CREATE, UPDATE and DELETE.")
    double multiPutFraction;

    @Option(names = "--multi-put-keys", paramLabel = "N", defaultValue = "4",
            description = "Distinct keys per MULTI_PUT, 1 to 64 and at most --keys (default: ${DEFAULT-VALUE}).")
    int multiPutKeys;

    @Option(names = "--value-size", paramLabel = "BYTES", defaultValue = "64",
            description = "Bytes per value, 1 to 16384 (default: ${DEFAULT-VALUE}).")
    int valueSize;

    /**
     * The clients' workload for runs of {@code duration} seeded by {@code seed}.
     *
     * @throws CommandLine.ParameterException naming the first flag out of range
     */
    public WorkloadSpec spec(Duration duration, long seed) {
        require(clients >= 1 && clients <= MAX_CLIENTS, "--clients must be from 1 to " + MAX_CLIENTS + ", got " + clients);
        require(keys >= 1 && keys <= MAX_KEYS, "--keys must be from 1 to " + MAX_KEYS + ", got " + keys);
        require(readFraction >= 0 && readFraction <= 1, "--read-fraction must be from 0 to 1, got " + number(readFraction));
        require(multiPutFraction >= 0 && multiPutFraction <= 1,
                "--multi-put-fraction must be from 0 to 1, got " + number(multiPutFraction));
        require(readFraction + multiPutFraction <= 1, "--read-fraction plus --multi-put-fraction must be at most 1, got "
                + number(readFraction + multiPutFraction));
        require(multiPutKeys >= 1 && multiPutKeys <= 64 && multiPutKeys <= keys,
                "--multi-put-keys must be from 1 to 64 and at most --keys (" + keys + "), got " + multiPutKeys);
        require(valueSize >= 1 && valueSize <= 16 * 1024, "--value-size must be from 1 to 16384, got " + valueSize);
        return new WorkloadSpec(clients, keys, readFraction, multiPutFraction, multiPutKeys, valueSize, duration, 0, seed);
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(mixee.commandLine(), message);
        }
    }

    static String number(double d) {
        return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
