package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.tributary.itests.inbound.FailingListener;
import io.tributary.itests.inbound.OrderedListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Inbound delivery: the RAR deployed on its own, and a WAR whose MDBs are bound to it with
 * {@code @ResourceAdapter("tributary-ra.rar")} on WildFly and the activation property
 * {@code resourceAdapter=tributary-ra} on Payara (each server ignores the other's). The test produces with Tributary's JMS provider, reads what the MDBs
 * saw through a servlet, and reads the dead-letter topic with the Kafka consumer.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class InboundDeliveryIT {

    private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(60);

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = "app", order = 2, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("inbound.war", OrderedListener.class);
    }

    @ArquillianResource
    @OperateOnDeployment("app")
    private URL app;

    @Test
    void mdbReceivesEveryMessageOnceInTheOrderSent() {
        List<String> sent = IntStream.rangeClosed(1, 20).mapToObj(i -> "message-" + i).toList();

        Clients.sendToQueue(OrderedListener.QUEUE, sent);

        List<String> expected = sent.stream().map(text -> text + "|false|1").toList();
        // Only this test's messages: the JMX bean test sends to the same queue, in either order.
        List<String> delivered = Clients.await(() -> deliveries(OrderedListener.QUEUE).stream()
                        .filter(text -> text.startsWith("message-")).toList(),
                seen -> seen.size() >= expected.size(), DELIVERY_TIMEOUT);
        assertEquals(expected, delivered);
    }

    @Test
    void failedMessageIsRedeliveredThenDeadLetteredAndTheRestFlowOn() {
        String poison = FailingListener.POISON + "-1";

        Clients.sendToQueue(FailingListener.QUEUE, List.of("before", poison, "after"));

        // One partition: "after" waits until the poison message has used up its deliveries and gone.
        List<String> expected = List.of("before|false|1", poison + "|false|1", poison + "|true|2", poison + "|true|3",
                "after|false|1");
        List<String> delivered = Clients.await(() -> deliveries(FailingListener.QUEUE),
                seen -> seen.size() >= expected.size(), DELIVERY_TIMEOUT);
        assertEquals(expected, delivered);

        List<ConsumerRecord<byte[], byte[]>> deadLetters = Clients.readTopic(FailingListener.DEAD_LETTERS,
                records -> !records.isEmpty(), DELIVERY_TIMEOUT);
        assertEquals(List.of(poison), Clients.texts(deadLetters));
        String reason = headerText(deadLetters.get(0), "jms.prop.TributaryDeadLetterReason");
        assertNotNull(reason, "the dead letter carries the failure");
        assertTrue(reason.contains("refusing " + poison), reason);
        // No second dead letter arrives for it later.
        assertEquals(1, Clients.readTopic(FailingListener.DEAD_LETTERS, records -> false, Duration.ofSeconds(2)).size());
    }

    @Test
    void theActivationsJmxBeanCountsItsDeliveriesInsideTheServer() {
        long before = Long.parseLong(activation(OrderedListener.QUEUE).get("Deliveries"));

        Clients.sendToQueue(OrderedListener.QUEUE, List.of("counted-1", "counted-2", "counted-3"));

        // ACTIVE once it has delivered (a moment of BACKING_OFF or BROKER_UNREACHABLE, such as a consumer
        // reconnecting, may come and go; one that stays fails the assertion).
        java.util.Map<String, String> bean = Clients.await(() -> activation(OrderedListener.QUEUE),
                seen -> Long.parseLong(seen.get("Deliveries")) >= before + 3 && "ACTIVE".equals(seen.get("State")),
                DELIVERY_TIMEOUT);
        assertTrue(Long.parseLong(bean.get("Deliveries")) >= before + 3, bean.toString());
        assertEquals("ACTIVE", bean.get("State"), bean.toString());
        assertEquals("0", bean.get("Failures"), bean.toString());
    }

    /** The attributes of the JMX bean of the activation delivering {@code queue}, read in the server. */
    private java.util.Map<String, String> activation(String queue) {
        java.util.Map<String, String> attributes = new java.util.LinkedHashMap<>();
        for (String line : Clients.lines(Clients.get(app, "activation?queue=" + queue))) {
            int equals = line.indexOf('=');
            attributes.put(line.substring(0, equals), line.substring(equals + 1));
        }
        return attributes;
    }

    private List<String> deliveries(String queue) {
        return Clients.lines(Clients.get(app, "deliveries?queue=" + queue));
    }

    /** A String property of the JMS record format: one type byte (8), then UTF-8. */
    private static String headerText(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        if (header == null) {
            return null;
        }
        byte[] value = header.value();
        return new String(value, 1, value.length - 1, StandardCharsets.UTF_8);
    }
}
