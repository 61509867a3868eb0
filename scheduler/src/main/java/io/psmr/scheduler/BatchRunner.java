package io.psmr.scheduler;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the commands of one batch, in order, through the service, and reports each outcome to the
 * sink. Shared by both schedulers. Thread-safe: workers call it concurrently for different batches.
 *
 * <p>Only a {@link DeterministicFailure} becomes a FAILED outcome. Anything else the service throws
 * leaves {@link #run} (checked exceptions wrapped in {@link UndeclaredServiceFailure}), and the
 * scheduler fail-stops: the batch stopped half-way on a failure that may not repeat elsewhere.
 */
final class BatchRunner<C extends Command, R> {

    private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);

    private final Service<C, R> service;
    private final ResultSink<C, R> sink;
    final LongAdder batchesExecuted = new LongAdder();
    final LongAdder commandsExecuted = new LongAdder();
    final LongAdder commandsFailed = new LongAdder();
    final LongAdder batchesRejected = new LongAdder();

    BatchRunner(Service<C, R> service, ResultSink<C, R> sink) {
        this.service = service;
        this.sink = sink;
    }

    /** Executes every command of {@code batch} and reports it, then reports the batch complete. */
    void run(Batch<C> batch) {
        long instance = batch.instance();
        List<C> commands = batch.commands();
        int n = commands.size();
        int failed = 0;
        for (int i = 0; i < n; i++) {
            C command = commands.get(i);
            R result;
            try {
                result = service.execute(command);
            } catch (DeterministicFailure e) {
                failed++;
                reportError(instance, i, command, new CommandError(CommandError.Kind.FAILED,
                        "command " + i + " of batch " + instance + " failed: " + e.getMessage()));
                continue;
            } catch (Error | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new UndeclaredServiceFailure(instance, i, e);
            }
            reportResult(instance, i, command, result);
        }
        commandsExecuted.add(n);
        commandsFailed.add(failed);
        batchesExecuted.increment();
        reportComplete(batch);
    }

    /** Reports every command of {@code batch} as rejected for {@code reason}; runs nothing. */
    void reject(Batch<C> batch, String reason) {
        CommandError error = new CommandError(CommandError.Kind.REJECTED,
                "batch " + batch.instance() + " rejected: " + reason);
        List<C> commands = batch.commands();
        for (int i = 0; i < commands.size(); i++) {
            reportError(batch.instance(), i, commands.get(i), error);
        }
        batchesRejected.increment();
        reportComplete(batch);
    }

    private void reportResult(long instance, int index, C command, R result) {
        try {
            sink.onResult(instance, index, command, result);
        } catch (RuntimeException e) {
            LOG.error("result sink threw for command {} of batch {}", index, instance, e);
        }
    }

    private void reportError(long instance, int index, C command, CommandError error) {
        try {
            sink.onError(instance, index, command, error);
        } catch (RuntimeException e) {
            LOG.error("result sink threw for command {} of batch {}", index, instance, e);
        }
    }

    private void reportComplete(Batch<C> batch) {
        try {
            sink.onBatchComplete(batch);
        } catch (RuntimeException e) {
            LOG.error("result sink threw completing batch {}", batch.instance(), e);
        }
    }
}
