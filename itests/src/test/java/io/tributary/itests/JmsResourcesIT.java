package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.time.Duration;
import java.util.List;

import io.tributary.itests.jmsresources.JmsResourcesServlet;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The standard ways besides {@code @Resource} to use the adapter for sending, on Payara: a container-injected
 * {@code @Inject @JMSConnectionFactory(...) JMSContext} over the adapter's pooled factory, and a factory the
 * application defines itself with {@code @JMSConnectionFactoryDefinition(resourceAdapter = "tributary-ra")}. Each
 * sends in container-managed transactions, and only committed sends are published: the proof that the send went
 * through the adapter's pooled, transaction-enlisted connection (a plain provider connection would publish at once).
 *
 * <p>Payara only: WildFly provides both through its messaging subsystem, which the tests' standalone.xml does not
 * have (docs/deploy-wildfly.md).
 */
@EnabledIfSystemProperty(named = "tributary.itests.server", matches = "payara",
        disabledReason = "injected JMSContext and @JMSConnectionFactoryDefinition need WildFly's messaging subsystem,"
                + " absent from standalone.xml")
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class JmsResourcesIT {

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = "app", order = 2, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("jms-resources.war", JmsResourcesServlet.class);
    }

    @ArquillianResource
    @OperateOnDeployment("app")
    private URL app;

    @Test
    void injectedJmsContextSendsThroughThePooledFactoryInTheTransaction() {
        assertOnlyCommittedSendsArePublished("injected", "itests.injected-context");
    }

    @Test
    void applicationDefinedFactorySendsThroughTheAdapterInTheTransaction() {
        assertOnlyCommittedSendsArePublished("defined", "itests.defined-factory");
    }

    private void assertOnlyCommittedSendsArePublished(String via, String queue) {
        send(via, queue, via + "-committed-1", "commit");
        send(via, queue, via + "-rolled-back", "rollback");
        send(via, queue, via + "-committed-2", "commit");

        // One partition, and each call returns after its transaction ended: a published rollback would stand
        // between the two committed messages.
        List<String> published = Clients.texts(Clients.readTopic(queue, records -> records.size() >= 2,
                Duration.ofSeconds(30)));
        assertEquals(List.of(via + "-committed-1", via + "-committed-2"), published);
        assertEquals(published, Clients.texts(Clients.readTopic(queue, records -> false, Duration.ofSeconds(2))),
                "nothing published late");
    }

    private void send(String via, String queue, String text, String outcome) {
        Clients.post(app, "send?via=" + via + "&queue=" + queue + "&outcome=" + outcome, text, 204);
    }
}
