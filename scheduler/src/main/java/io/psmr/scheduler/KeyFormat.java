package io.psmr.scheduler;

import java.nio.charset.StandardCharsets;

/** Renders keys in error messages: printable ASCII as text, anything else as hex, at most 64 bytes. */
final class KeyFormat {

    private static final int MAX_SHOWN = 64;

    private KeyFormat() {
    }

    static String describe(byte[] key) {
        int shown = Math.min(key.length, MAX_SHOWN);
        boolean printable = true;
        for (int i = 0; i < shown; i++) {
            if (key[i] < 0x20 || key[i] > 0x7e) {
                printable = false;
                break;
            }
        }
        StringBuilder sb = new StringBuilder();
        if (printable) {
            sb.append('"').append(new String(key, 0, shown, StandardCharsets.US_ASCII)).append('"');
        } else {
            sb.append("0x");
            for (int i = 0; i < shown; i++) {
                sb.append(Character.forDigit((key[i] >> 4) & 0xf, 16)).append(Character.forDigit(key[i] & 0xf, 16));
            }
        }
        if (key.length > shown) {
            sb.append("...(").append(key.length).append(" bytes)");
        }
        return sb.toString();
    }
}
