package io.psmr.bench.ycsb;

import io.psmr.bench.load.ClusterLoad;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One {@link ClientProxy} to a process cluster, shared by every {@link PsmrYcsbDb} that YCSB's own
 * {@code Client} creates by class name in this JVM: the first {@link #acquire} opens it (a session claimed
 * as {@code ./psmr load --cluster} claims one), the last {@link #release} closes it.
 *
 * <p>The proxy lives on a thread of its own ({@code psmr-ycsb-proxy}) inside
 * {@link ClusterLoad#withProxy}, which scopes the session, and is handed to the bindings from there.
 *
 * <p><b>Threads.</b> Any thread; {@code acquire} blocks until the proxy is open (at most
 * {@value #OPEN_SECONDS} s), the last {@code release} until it is closed.
 */
final class ClusterProxyLease {

    /** How long opening the proxy may take before {@link #acquire} gives up. */
    static final int OPEN_SECONDS = 60;

    private static final Map<Path, ClusterProxyLease> OPEN = new HashMap<>(); // guarded by the class

    private final Path dir;
    private final CompletableFuture<ClientProxy> ready = new CompletableFuture<>();
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread owner;
    private int holders; // guarded by the class

    private ClusterProxyLease(Path dir, int batch, int window) {
        this.dir = dir;
        this.owner = new Thread(() -> {
            try {
                ClusterLoad.withProxy(new ClusterDirectory(dir), rc -> ProxyConfig.builder().proxyId(1)
                        .detection(rc.detection()).limits(rc.limits()).maxBatchCommands(batch).window(window).build(),
                        (proxy, probe) -> {
                            ready.complete(proxy);
                            done.await();
                            return null;
                        });
            } catch (Throwable t) {
                ready.completeExceptionally(t);
            }
        }, "psmr-ycsb-proxy");
        owner.setDaemon(true);
    }

    /**
     * The shared proxy to the cluster in {@code dir}, opened by the first caller with these batch and
     * window settings (later callers share it as it is).
     *
     * @throws IllegalStateException naming the cause if the cluster cannot be reached in time
     */
    static ClientProxy acquire(Path dir, int batch, int window) throws InterruptedException {
        Path key = dir.toAbsolutePath().normalize();
        ClusterProxyLease lease;
        synchronized (ClusterProxyLease.class) {
            lease = OPEN.get(key);
            if (lease == null) {
                lease = new ClusterProxyLease(key, batch, window);
                OPEN.put(key, lease);
                lease.owner.start();
            }
            lease.holders++;
        }
        try {
            return lease.ready.get(OPEN_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            release(key);
            Throwable cause = e.getCause();
            throw new IllegalStateException("cannot open a proxy to the cluster in " + key + ": " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            release(key);
            throw new IllegalStateException("no proxy to the cluster in " + key + " opened within " + OPEN_SECONDS
                    + " s (see ./psmr cluster status --dir " + key + ")");
        }
    }

    /** Gives back one holder's share; the last one closes the proxy and waits for it to close. */
    static void release(Path dir) throws InterruptedException {
        Path key = dir.toAbsolutePath().normalize();
        ClusterProxyLease last;
        synchronized (ClusterProxyLease.class) {
            ClusterProxyLease lease = OPEN.get(key);
            if (lease == null || --lease.holders > 0) {
                return;
            }
            OPEN.remove(key);
            last = lease;
        }
        last.done.countDown();
        last.owner.join(TimeUnit.SECONDS.toMillis(OPEN_SECONDS));
    }
}
