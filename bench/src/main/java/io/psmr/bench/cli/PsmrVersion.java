package io.psmr.bench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

import picocli.CommandLine;

/** {@code psmr --version}: the project version, filtered into {@code psmr-version.properties} at build time. */
final class PsmrVersion implements CommandLine.IVersionProvider {

    static String version() {
        Properties p = new Properties();
        try (InputStream in = PsmrVersion.class.getResourceAsStream("/psmr-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "psmr " + version(),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
        };
    }
}
