package io.psmr.kvstore;

import java.util.List;

/** The JVM flags psmr needs on JDK 17 (Chronicle Map's), for the JVMs psmr itself launches. Mirrors {@code ./psmr} and the pom. */
public final class ChronicleJvmFlags {

    /** Chronicle Map's opens and exports, and its analytics turned off. */
    public static final List<String> CHRONICLE = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "-Dchronicle.analytics.disable=true");

    private ChronicleJvmFlags() {
    }
}
