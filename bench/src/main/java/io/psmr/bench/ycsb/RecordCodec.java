package io.psmr.bench.ycsb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A YCSB record (field name to bytes) as one psmr value, and back. The encoding is deterministic,
 * so that equal records are equal values on every replica: the field count, then for each field in
 * name order its UTF-8 name and its bytes, each prefixed by its length as a 4-byte big-endian int.
 *
 * <p>Stateless; any thread.
 */
public final class RecordCodec {

    private RecordCodec() {
    }

    /** The encoded size of {@code fields}, without encoding them. */
    public static long encodedSize(SortedMap<String, byte[]> fields) {
        long n = 4;
        for (Map.Entry<String, byte[]> e : fields.entrySet()) {
            n += 8L + e.getKey().getBytes(StandardCharsets.UTF_8).length + e.getValue().length;
        }
        return n;
    }

    /** The value holding {@code fields}, in name order. */
    public static byte[] encode(SortedMap<String, byte[]> fields) {
        long size = encodedSize(fields);
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a record of " + size + " bytes does not fit in one value");
        }
        ByteBuffer b = ByteBuffer.allocate((int) size);
        b.putInt(fields.size());
        for (Map.Entry<String, byte[]> e : fields.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            b.putInt(name.length).put(name).putInt(e.getValue().length).put(e.getValue());
        }
        return b.array();
    }

    /**
     * The fields of {@code value}, only those named in {@code wanted} (all when it is null).
     *
     * @throws IllegalArgumentException if {@code value} is not an encoded record
     */
    public static SortedMap<String, byte[]> decode(byte[] value, Set<String> wanted) {
        TreeMap<String, byte[]> fields = new TreeMap<>();
        try {
            ByteBuffer b = ByteBuffer.wrap(value);
            int count = b.getInt();
            if (count < 0) {
                throw new IllegalArgumentException("negative field count " + count);
            }
            for (int i = 0; i < count; i++) {
                String name = new String(bytes(b), StandardCharsets.UTF_8);
                byte[] field = bytes(b);
                if (wanted == null || wanted.contains(name)) {
                    fields.put(name, field);
                }
            }
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " bytes after the last field");
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("the value ends inside a field", e);
        }
        return fields;
    }

    private static byte[] bytes(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException("a field length of " + n + " with " + b.remaining() + " bytes left");
        }
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }
}
