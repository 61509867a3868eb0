package io.psmr.proxy.load;

import java.nio.charset.StandardCharsets;

/** The little JSON writing the load tool needs: string quoting. Stateless. */
final class Json {

    private Json() {
    }

    /** {@code s} as a JSON string literal, or {@code null}. */
    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2);
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * Bytes as a JSON string: each byte is one character of the same code (ISO-8859-1), so any byte
     * string round-trips; the load generator's keys and values are printable ASCII and read as is.
     */
    static String bytes(byte[] b) {
        return b == null ? "null" : quote(new String(b, StandardCharsets.ISO_8859_1));
    }
}
