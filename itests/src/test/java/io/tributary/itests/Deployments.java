package io.tributary.itests;

import java.nio.file.Path;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The archives the ITs deploy: the build's RAR and EAR (copied to target/deployments by the module's pom.xml), and
 * WARs. The same archives serve WildFly (itests/) and Payara (itests-payara/): each carries both servers' descriptors,
 * and each server ignores the other's.
 */
public final class Deployments {

    /** The adapter's deployment name; the test MDBs name it in WildFly's {@code @ResourceAdapter}. */
    public static final String RAR = "tributary-ra.rar";

    /**
     * The adapter's module name on Payara (the archive's name without {@code .rar}); the test MDBs name it in the
     * {@code resourceAdapter} activation property, which WildFly ignores.
     */
    public static final String RAR_MODULE = "tributary-ra";

    /**
     * The resource reference ({@code java:comp/env/jms/TributaryConnectionFactory}) through which test beans use the
     * adapter's pooled factory: WEB-INF/jboss-ejb3.xml maps it to the factory the RAR's ironjacamar.xml binds on
     * WildFly, WEB-INF/glassfish-ejb-jar.xml to {@link #PAYARA_CONNECTION_FACTORY} on Payara.
     */
    public static final String CONNECTION_FACTORY_REF = "jms/TributaryConnectionFactory";

    /** WildFly: where the adapter's ironjacamar.xml binds its pooled factory. */
    public static final String WILDFLY_CONNECTION_FACTORY = "java:/jms/TributaryConnectionFactory";

    /**
     * Payara: the application-scoped pooled factory of the stand-alone adapter that each WAR beside it defines in
     * WEB-INF/glassfish-resources.xml (Payara binds nothing for an adapter by itself, and a global resource would
     * need asadmin before the tests).
     */
    public static final String PAYARA_CONNECTION_FACTORY = "java:app/jms/TributaryConnectionFactory";

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
     * A WAR of the classes of {@code packageOf}'s package, for use beside the stand-alone RAR, with what each server
     * needs:
     * <ul>
     *   <li>WildFly: the manifest gives it the Jakarta Messaging API (standalone.xml has no messaging subsystem to do
     *       so) and the adapter deployment's classes, and makes WildFly deploy it after the adapter;
     *       WEB-INF/jboss-ejb3.xml maps the resource reference {@value #CONNECTION_FACTORY_REF} of
     *       {@code senders} to {@value #WILDFLY_CONNECTION_FACTORY};</li>
     *   <li>Payara: WEB-INF/glassfish-resources.xml defines a connection pool of the adapter and the factory
     *       {@value #PAYARA_CONNECTION_FACTORY}, and WEB-INF/glassfish-ejb-jar.xml maps the reference to it.</li>
     * </ul>
     *
     * @param senders the EJBs (by ejb-name: the simple class name) that declare the reference
     */
    public static WebArchive applicationBesideAdapter(String name, Class<?> packageOf, String... senders) {
        StringBuilder jboss = new StringBuilder();
        StringBuilder glassfish = new StringBuilder();
        for (String ejb : senders) {
            jboss.append("""
                        <session>
                          <ejb-name>%s</ejb-name>
                          <resource-ref>
                            <res-ref-name>%s</res-ref-name>
                            <lookup-name>%s</lookup-name>
                          </resource-ref>
                        </session>
                    """.formatted(ejb, CONNECTION_FACTORY_REF, WILDFLY_CONNECTION_FACTORY));
            glassfish.append("""
                        <ejb>
                          <ejb-name>%s</ejb-name>
                          <resource-ref>
                            <res-ref-name>%s</res-ref-name>
                            <jndi-name>%s</jndi-name>
                          </resource-ref>
                        </ejb>
                    """.formatted(ejb, CONNECTION_FACTORY_REF, PAYARA_CONNECTION_FACTORY));
        }
        WebArchive war = ShrinkWrap.create(WebArchive.class, name)
                .addPackage(packageOf.getPackage())
                .setManifest(new StringAsset("Manifest-Version: 1.0\nDependencies: jakarta.jms.api, deployment." + RAR
                        + "\n"))
                .addAsWebInfResource(new StringAsset(payaraResources("LocalTransaction")), "glassfish-resources.xml");
        if (senders.length > 0) {
            war.addAsWebInfResource(new StringAsset("""
                    <?xml version="1.0" encoding="UTF-8"?>
                    <jboss:ejb-jar xmlns:jboss="urn:jboss:domain:ejb3:4.0" xmlns="https://jakarta.ee/xml/ns/jakartaee"
                                   version="4.0" impl-version="2.0">
                      <enterprise-beans>
                    %s  </enterprise-beans>
                    </jboss:ejb-jar>
                    """.formatted(jboss)), "jboss-ejb3.xml");
            war.addAsWebInfResource(new StringAsset("""
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!DOCTYPE glassfish-ejb-jar PUBLIC "-//GlassFish.org//DTD GlassFish Application Server 3.1 EJB 3.1//EN"
                            "http://glassfish.org/dtds/glassfish-ejb-jar_3_1-1.dtd">
                    <glassfish-ejb-jar>
                      <enterprise-beans>
                    %s  </enterprise-beans>
                    </glassfish-ejb-jar>
                    """.formatted(glassfish)), "glassfish-ejb-jar.xml");
        }
        return war;
    }

    /**
     * Payara's application-scoped pool of the stand-alone adapter ({@value #RAR_MODULE}) and its factory
     * {@value #PAYARA_CONNECTION_FACTORY}, enlisted with {@code transactionSupport} ({@code LocalTransaction}: a
     * one-phase last resource; {@code XATransaction}: two-phase with recovery), so a send in a container
     * transaction is published at commit.
     */
    public static String payaraResources(String transactionSupport) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE resources PUBLIC "-//GlassFish.org//DTD GlassFish Application Server 3.1 Resource Definitions//EN"
                        "http://glassfish.org/dtds/glassfish-resources_1_5.dtd">
                <resources>
                  <connector-connection-pool name="java:app/TributaryConnectionPool" resource-adapter-name="%s"
                                             connection-definition-name="jakarta.jms.ConnectionFactory"
                                             transaction-support="%s" steady-pool-size="0"
                                             max-pool-size="20"/>
                  <connector-resource jndi-name="%s" pool-name="java:app/TributaryConnectionPool"/>
                </resources>
                """.formatted(RAR_MODULE, transactionSupport, PAYARA_CONNECTION_FACTORY);
    }

    private static Path built(String file) {
        return Path.of(TributaryBroker.requiredProperty("tributary.itests.deployments"), file);
    }
}
