package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psmr.bench.load.LoadGenerator;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The process tests' last step: every key of the load read back through the proxy, to close the history. */
final class FinalReads {

    private FinalReads() {
    }

    /**
     * Reads keys {@code k0 .. k(keys-1)} one after another, each within 60 s; returns the values of those found
     * ({@code "kN" → value}). A status other than OK or NOT_FOUND fails the test, naming the key and {@code context}.
     */
    static Map<String, String> of(ClientProxy proxy, int keys, String context) throws Exception {
        KvClient reader = proxy.newClient();
        Map<String, String> state = new HashMap<>();
        for (int k = 0; k < keys; k++) {
            KvResult r = reader.read(LoadGenerator.key(k)).get(60, TimeUnit.SECONDS);
            if (r.status() == KvStatus.OK) {
                state.put("k" + k, new String(r.value(), StandardCharsets.ISO_8859_1));
            } else {
                assertEquals(KvStatus.NOT_FOUND, r.status(), "final read of k" + k + ": " + r + ", " + context);
            }
        }
        return state;
    }
}
