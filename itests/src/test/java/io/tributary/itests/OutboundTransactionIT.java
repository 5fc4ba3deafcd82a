package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.time.Duration;
import java.util.List;

import io.tributary.itests.outbound.TransactionalSender;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Outbound sends through the adapter's pooled factory (on WildFly the one the RAR's ironjacamar.xml binds, on Payara
 * the one the WAR's glassfish-resources.xml defines: {@link Deployments#applicationBesideAdapter}) inside
 * container-managed transactions: the adapter's local transaction is enlisted
 * as the last resource, so a message is published at commit and never after a rollback.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class OutboundTransactionIT {

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = "app", order = 2, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("outbound.war", TransactionalSender.class,
                TransactionalSender.class.getSimpleName());
    }

    @ArquillianResource
    @OperateOnDeployment("app")
    private URL app;

    @Test
    void committedSendIsPublishedAndRolledBackSendIsNot() {
        String queue = "itests.outbound";

        send(queue, "committed-1", "commit");
        send(queue, "rolled-back", "rollback");
        send(queue, "committed-2", "commit");

        // Each call returns after its transaction ended, and the topic has one partition: had the rolled-back
        // message been published, it would stand between the two committed ones.
        List<String> published = Clients.texts(Clients.readTopic(queue, records -> records.size() >= 2,
                Duration.ofSeconds(30)));
        assertEquals(List.of("committed-1", "committed-2"), published);
        assertEquals(published, Clients.texts(Clients.readTopic(queue, records -> false, Duration.ofSeconds(2))),
                "nothing published late");
    }

    private void send(String queue, String text, String outcome) {
        Clients.post(app, "send?queue=" + queue + "&outcome=" + outcome, text, 204);
    }
}
