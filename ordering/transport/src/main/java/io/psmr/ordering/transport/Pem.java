package io.psmr.ordering.transport;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * PEM text (RFC 7468): DER bytes in Base64 between {@code -----BEGIN TYPE-----} and {@code -----END TYPE-----} lines,
 * the form in which psmr writes and reads certificates ({@code CERTIFICATE}) and private keys ({@code PRIVATE KEY},
 * PKCS #8). Stateless; any thread.
 */
public final class Pem {

    /** The type of an X.509 certificate. */
    public static final String CERTIFICATE = "CERTIFICATE";
    /** The type of an unencrypted PKCS #8 private key. */
    public static final String PRIVATE_KEY = "PRIVATE KEY";

    private Pem() {
    }

    /** {@code der} as one PEM block of {@code type}, lines of 64 characters, ending in a newline. */
    public static String encode(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    /**
     * The DER bytes of every block of {@code type} in {@code text}, in order; text outside blocks (comments) is ignored.
     *
     * @throws IllegalArgumentException naming the problem: a block not closed, or not Base64
     */
    public static List<byte[]> decode(String type, String text) {
        String begin = "-----BEGIN " + type + "-----";
        String end = "-----END " + type + "-----";
        List<byte[]> blocks = new ArrayList<>();
        int from = 0;
        while (true) {
            int b = text.indexOf(begin, from);
            if (b < 0) {
                return blocks;
            }
            int e = text.indexOf(end, b + begin.length());
            if (e < 0) {
                throw new IllegalArgumentException("a " + type + " block is not closed by '" + end + "'");
            }
            try {
                blocks.add(Base64.getMimeDecoder().decode(text.substring(b + begin.length(), e).strip()));
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("a " + type + " block is not Base64: " + bad.getMessage(), bad);
            }
            from = e + end.length();
        }
    }
}
