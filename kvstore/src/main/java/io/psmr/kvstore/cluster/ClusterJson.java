package io.psmr.kvstore.cluster;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import io.psmr.scheduler.SchedulerMode;
import java.io.IOException;
import java.util.function.Function;

/**
 * The JSON mapping of cluster.json: strict (unknown fields and missing primitives are errors), and
 * with psmr's vocabulary written as on the command line ({@code "mode": "bitmap-indexed"},
 * {@code "ordering": "ringpaxos"}), so the file reads like the command that made it. A name that is
 * not one fails the read with the vocabulary's own message ({@link SchedulerMode#fromCliName}).
 *
 * <p>Thread-safe once built, as Jackson's {@link ObjectMapper} is.
 */
final class ClusterJson {

    static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .registerModule(new SimpleModule("psmr-vocabulary")
                    .addSerializer(SchedulerMode.class, new NameSerializer<>(SchedulerMode.class, SchedulerMode::cliName))
                    .addDeserializer(SchedulerMode.class, new NameDeserializer<>(SchedulerMode.class, SchedulerMode::fromCliName))
                    .addSerializer(OrderingProtocol.class, new NameSerializer<>(OrderingProtocol.class, OrderingProtocol::cliName))
                    .addDeserializer(OrderingProtocol.class,
                            new NameDeserializer<>(OrderingProtocol.class, OrderingProtocol::fromCliName))
                    .addSerializer(ByzantineMode.class, new NameSerializer<>(ByzantineMode.class, ByzantineMode::cliName))
                    .addDeserializer(ByzantineMode.class, new NameDeserializer<>(ByzantineMode.class, ByzantineMode::fromCliName)));

    private ClusterJson() {
    }

    private static final class NameSerializer<T> extends StdSerializer<T> {
        private final transient Function<T, String> name;

        NameSerializer(Class<T> type, Function<T, String> name) {
            super(type);
            this.name = name;
        }

        @Override
        public void serialize(T value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(name.apply(value));
        }
    }

    private static final class NameDeserializer<T> extends StdDeserializer<T> {
        private final transient Function<String, T> byName;

        NameDeserializer(Class<T> type, Function<String, T> byName) {
            super(type);
            this.byName = byName;
        }

        @Override
        public T deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            return byName.apply(p.getValueAsString()); // an IllegalArgumentException names the problem
        }
    }
}
