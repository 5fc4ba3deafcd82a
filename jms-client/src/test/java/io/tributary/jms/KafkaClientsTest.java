package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/**
 * The Kafka client configurations of a connection, from the factory's {@code kafkaProperties}: a property prefixed
 * for one kind of client beats the same property without a prefix, in every JVM; the properties that JMS semantics
 * own are refused when they are set.
 */
class KafkaClientsTest {

    /** Properties set both ways; enough of them that a precedence left to hash order cannot pass by chance. */
    private static final List<String> NAMES = List.of("linger.ms", "batch.size", "buffer.memory",
            "compression.type", "retries", "max.request.size", "send.buffer.bytes", "receive.buffer.bytes",
            "metadata.max.age.ms", "client.rack", "reconnect.backoff.ms", "request.timeout.ms");

    @Test
    void aPropertyPrefixedForOneKindOfClientBeatsTheSamePropertyWithoutPrefix() throws Exception {
        TributaryConnectionFactory factory = new TributaryConnectionFactory("cluster:9092");
        for (String name : NAMES) {
            factory.setKafkaProperty(name, "everyone");
            factory.setKafkaProperty("producer." + name, "producer");
            factory.setKafkaProperty("consumer." + name, "consumer");
            factory.setKafkaProperty("admin." + name, "admin");
        }
        factory.setKafkaProperty("security.protocol", "SASL_SSL");

        KafkaClients clients = new KafkaClients(factory.settings(null, null), "test");
        Map<String, Object> producer = clients.producer();
        Map<String, Object> consumer = clients.consumer("group", "earliest", "queue");
        Map<String, Object> admin = clients.admin();
        for (String name : NAMES) {
            assertEquals("producer", producer.get(name), name);
            assertEquals("consumer", consumer.get(name), name);
            assertEquals("admin", admin.get(name), name);
        }
        assertEquals("SASL_SSL", producer.get("security.protocol"), "an unprefixed property reaches every client");
        assertEquals("SASL_SSL", consumer.get("security.protocol"));
        assertEquals("SASL_SSL", admin.get("security.protocol"));
        assertEquals(false, producer.containsKey("producer.linger.ms"), "the prefix is removed");
    }

    @Test
    void propertiesThatJmsSemanticsOwnAreRefused() {
        TributaryConnectionFactory factory = new TributaryConnectionFactory("cluster:9092");
        for (String name : List.of("group.id", "consumer.group.id", "enable.auto.commit",
                "consumer.enable.auto.commit", "auto.offset.reset", "consumer.auto.offset.reset", "key.deserializer",
                "consumer.value.deserializer", "key.serializer", "producer.value.serializer", "transactional.id",
                "producer.transactional.id")) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> factory.setKafkaProperty(name, "x"), name);
            assertTrue(refused.getMessage().contains("'" + name + "'"), refused.getMessage());

            Properties properties = new Properties();
            properties.setProperty("client.rack", "a");
            properties.setProperty(name, "x");
            assertThrows(IllegalArgumentException.class, () -> factory.setKafkaProperties(properties), name);
        }
        assertEquals(new Properties(), factory.getKafkaProperties(), "a refused setting leaves the factory as it was");
    }
}
