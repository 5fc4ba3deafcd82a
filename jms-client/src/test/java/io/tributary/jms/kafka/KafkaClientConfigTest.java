package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The configuration of every Kafka client of the provider and the adapter; no broker needed. */
class KafkaClientConfigTest {

    private static final Map<String, Object> NONE = Map.of();

    @Test
    void precedenceIsDefaultsThenUnprefixedThenPrefixedThenWhatJmsOwnsWhateverTheOrderGiven() {
        List<Map.Entry<String, String>> entries = new ArrayList<>(List.of(
                Map.entry("linger.ms", "1"), Map.entry("producer.linger.ms", "2"),
                Map.entry("fetch.min.bytes", "3"), Map.entry("consumer.fetch.min.bytes", "4"),
                Map.entry("request.timeout.ms", "5"), Map.entry("admin.request.timeout.ms", "6"),
                Map.entry("client.rack", "r")));
        Random random = new Random(21);
        for (int round = 0; round < 20; round++) {
            Collections.shuffle(entries, random);
            Map<String, String> given = new LinkedHashMap<>();
            entries.forEach(entry -> given.put(entry.getKey(), entry.getValue()));
            KafkaClientConfig config = KafkaClientConfig.of("cluster:9092", given);

            Map<String, Object> producer = config.producer("p", Map.of("linger.ms", 9, "batch.size", 7));
            assertEquals("2", producer.get("linger.ms"), given.toString());
            assertEquals(7, producer.get("batch.size"), "a default nothing overrides");
            assertEquals("5", producer.get("request.timeout.ms"));
            assertEquals("r", producer.get("client.rack"));
            assertEquals("3", producer.get("fetch.min.bytes"), "another kind's prefixed property does not reach it");

            Map<String, Object> consumer = config.consumer("c", "group", "earliest", NONE);
            assertEquals("4", consumer.get("fetch.min.bytes"), given.toString());
            assertEquals("1", consumer.get("linger.ms"), "unprefixed properties reach every kind");
            assertEquals("5", consumer.get("request.timeout.ms"), "an unprefixed property beats a default");

            Map<String, Object> admin = config.admin("a", NONE);
            assertEquals("6", admin.get("request.timeout.ms"), given.toString());
        }
    }

    @Test
    void whatJmsSemanticsOwnIsSetLast() {
        KafkaClientConfig config = KafkaClientConfig.of("cluster:9092", Map.of("producer.client.id", "mine"));
        Map<String, Object> consumer = config.consumer("c", "orders", "latest",
                Map.of("enable.auto.commit", true, "auto.offset.reset", "none"));
        assertEquals("orders", consumer.get("group.id"));
        assertEquals(false, consumer.get("enable.auto.commit"));
        assertEquals("latest", consumer.get("auto.offset.reset"));
        assertEquals(ByteArrayDeserializer.class, consumer.get("value.deserializer"));
        assertEquals("cluster:9092", consumer.get("bootstrap.servers"));
        assertNull(config.consumer("c", null, "latest", NONE).get("group.id"), "an assigned consumer has no group");
        assertEquals("read_committed", consumer.get("isolation.level"), "JMS consumers read committed records only");
        assertEquals("read_committed", config.consumer("c", null, "latest", Map.of("isolation.level",
                "read_uncommitted")).get("isolation.level"), "not even a caller's default changes that");

        Map<String, Object> producer = config.producer("p", NONE);
        assertEquals(ByteArraySerializer.class, producer.get("key.serializer"));
        assertEquals("all", producer.get("acks"));
        assertEquals(true, producer.get("enable.idempotence"));
        assertEquals("mine", producer.get("client.id"), "the client id is a default like any other");
        assertNull(producer.get("transactional.id"), "the shared producer is idempotent, not transactional");

        Map<String, Object> transactional = config.transactionalProducer("t", "app-3", NONE);
        assertEquals("app-3", transactional.get("transactional.id"));
        assertEquals("all", transactional.get("acks"));
        assertEquals(true, transactional.get("enable.idempotence"));
    }

    @Test
    void aSaslLoginFromUserAndPasswordBeatsThePassThroughProperties() {
        KafkaClientConfig config = KafkaClientConfig.of("cluster:9092", Map.of("sasl.mechanism", "PLAIN"))
                .withSaslLogin("SCRAM-SHA-256", "login;");
        assertEquals("login;", config.producer("p", NONE).get("sasl.jaas.config"));
        assertEquals("SCRAM-SHA-256", config.producer("p", NONE).get("sasl.mechanism"));
        assertEquals("login;", config.consumer("c", null, "latest", NONE).get("sasl.jaas.config"));
        assertEquals("login;", config.admin("a", NONE).get("sasl.jaas.config"));
        assertNull(KafkaClientConfig.of("cluster:9092", Map.of()).admin("a", NONE).get("sasl.jaas.config"));
    }

    @Test
    void propertiesThatJmsSemanticsOwnAreRefusedForTheClientsThatUseThem() {
        for (String owned : List.of("group.id", "consumer.group.id", "enable.auto.commit",
                "consumer.enable.auto.commit", "auto.offset.reset", "consumer.auto.offset.reset", "key.deserializer",
                "consumer.value.deserializer", "key.serializer", "producer.value.serializer", "transactional.id",
                "producer.transactional.id", "isolation.level", "consumer.isolation.level")) {
            OwnedPropertyException refused = assertThrows(OwnedPropertyException.class,
                    () -> KafkaClientConfig.of("cluster:9092", Map.of("client.rack", "a", owned, "x")), owned);
            assertEquals(owned, refused.property());
            assertTrue(refused.getMessage().startsWith("Kafka property '" + owned + "' cannot be set: Tributary"),
                    refused.getMessage());
        }
        // Addressed to a client that does not use them: harmless, so accepted.
        for (String other : List.of("producer.group.id", "admin.group.id", "consumer.transactional.id",
                "admin.key.serializer", "producer.isolation.level")) {
            KafkaClientConfig.checkNotOwned(other);
        }
    }

    @Test
    void clientsAreCreatedWithTheProvidersClassLoaderAndTheCallersIsRestored() throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader blind = new URLClassLoader(new URL[0], null)) {
            thread.setContextClassLoader(blind);
            ClassLoader seen = KafkaClientConfig.withProviderClassLoader(() -> thread.getContextClassLoader());
            assertSame(KafkaClientConfig.class.getClassLoader(), seen);
            assertSame(blind, thread.getContextClassLoader());
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
