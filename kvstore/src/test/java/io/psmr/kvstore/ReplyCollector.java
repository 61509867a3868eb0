package io.psmr.kvstore;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** A reply channel that records every reply by replica and (proxy, batch, index). Thread-safe. */
final class ReplyCollector implements ReplyChannel {

    final Map<Integer, Map<List<Long>, KvResult>> byReplica = new ConcurrentHashMap<>();
    final List<String> repeated = new CopyOnWriteArrayList<>();
    final AtomicLong count = new AtomicLong();

    static List<Long> id(long proxy, long batch, int index) {
        return List.of(proxy, batch, (long) index);
    }

    @Override
    public void onReply(KvReply r) {
        count.incrementAndGet();
        KvResult old = byReplica.computeIfAbsent(r.replicaId(), k -> new ConcurrentHashMap<>())
                .put(id(r.proxyId(), r.batchId(), r.index()), r.result());
        if (old != null) {
            repeated.add(r.toString());
        }
    }

    Map<List<Long>, KvResult> of(int replica) {
        return byReplica.getOrDefault(replica, Map.of());
    }

    KvResult get(int replica, long proxy, long batch, int index) {
        return of(replica).get(id(proxy, batch, index));
    }
}
