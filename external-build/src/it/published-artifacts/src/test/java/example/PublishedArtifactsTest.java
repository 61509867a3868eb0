package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every artifact the BOM lists names its module, so that teams on the module path can require it. */
class PublishedArtifactsTest {

    /** Each published artifact, and the module name its jar's manifest must give. */
    private static final Map<String, String> MODULE_NAMES = new TreeMap<>(Map.of(
            "psmr-scheduler", "io.psmr.scheduler",
            "psmr-ordering-core", "io.psmr.ordering.core",
            "psmr-ordering-transport", "io.psmr.ordering.transport",
            "psmr-ordering-ringpaxos", "io.psmr.ordering.ringpaxos",
            "psmr-ordering-pbft", "io.psmr.ordering.pbft",
            "psmr-ordering-ratis", "io.psmr.ordering.ratis",
            "psmr-kvstore", "io.psmr.kvstore",
            "psmr-client-proxy", "io.psmr.proxy",
            "psmr-simulation", "io.psmr.simulation"));

    /** A psmr jar as the local repository holds it: .../io/psmr/ARTIFACT/VERSION/ARTIFACT-VERSION.jar. */
    private static final Pattern PSMR_JAR = Pattern.compile("jar:(file:.*/io/psmr/([^/]+)/[^/]+/[^/]+\\.jar)!/META-INF/MANIFEST\\.MF");

    @Test
    void everyPublishedJarNamesItsModuleAndTheyResolveTogether() throws Exception {
        Map<String, String> named = new TreeMap<>();
        List<Path> jars = new ArrayList<>();
        Enumeration<URL> manifests = getClass().getClassLoader().getResources("META-INF/MANIFEST.MF");
        while (manifests.hasMoreElements()) {
            URL url = manifests.nextElement();
            Matcher m = PSMR_JAR.matcher(url.toString());
            if (!m.matches()) {
                continue;
            }
            try (InputStream in = url.openStream()) {
                named.put(m.group(2), new Manifest(in).getMainAttributes().getValue("Automatic-Module-Name"));
            }
            jars.add(Paths.get(new URL(m.group(1)).toURI()));
        }
        assertEquals(MODULE_NAMES, named, "each artifact's Automatic-Module-Name");

        // The module system derives the same names, and the nine share no package.
        ModuleFinder finder = ModuleFinder.of(jars.toArray(Path[]::new));
        Map<String, String> derived = new TreeMap<>();
        for (ModuleReference ref : finder.findAll()) {
            String file = Paths.get(ref.location().orElseThrow()).getFileName().toString();
            derived.put(file.replaceFirst("-\\d.*\\.jar$", ""), ref.descriptor().name());
        }
        assertEquals(MODULE_NAMES, derived);
        Configuration resolved = ModuleLayer.boot().configuration()
                .resolve(finder, ModuleFinder.of(), MODULE_NAMES.values());
        assertEquals(MODULE_NAMES.size(), resolved.modules().size());
    }
}
