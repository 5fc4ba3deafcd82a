package io.tributary.itests;

import java.nio.file.Path;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/** The archives the ITs deploy: the build's RAR and EAR (copied to target/deployments by itests/pom.xml), and WARs. */
public final class Deployments {

    /** The adapter's deployment name; the test MDBs name it in {@code @ResourceAdapter}. */
    public static final String RAR = "tributary-ra.rar";

    private Deployments() {
    }

    /** tributary-ra.rar as the build made it. */
    public static ResourceAdapterArchive resourceAdapter() {
        return ShrinkWrap.createFromZipFile(ResourceAdapterArchive.class, built(RAR).toFile());
    }

    /** tributary-example.ear as the build made it. */
    public static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, built("tributary-example.ear").toFile());
    }

    /**
     * A WAR of the classes of {@code packageOf}'s package, for use beside the stand-alone RAR: its manifest gives it
     * the Jakarta Messaging API (standalone.xml has no messaging subsystem to do so) and the adapter deployment's
     * classes, and makes WildFly deploy it after the adapter.
     */
    public static WebArchive applicationBesideAdapter(String name, Class<?> packageOf) {
        return ShrinkWrap.create(WebArchive.class, name)
                .addPackage(packageOf.getPackage())
                .setManifest(new StringAsset("Manifest-Version: 1.0\nDependencies: jakarta.jms.api, deployment." + RAR
                        + "\n"));
    }

    private static Path built(String file) {
        return Path.of(TributaryBroker.requiredProperty("tributary.itests.deployments"), file);
    }
}
