package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import io.tributary.testsupport.TestCertificates;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes that replicate over a SASL_SSL inter-broker listener ({@code INTERNAL}, PLAIN with the
 * broker's own user from the listener's JAAS entry, TLS with certificates from {@link TestCertificates}), while the
 * test's clients use the PLAINTEXT listener. Every partition of the topic needs all three replicas in sync
 * ({@code min.insync.replicas=3}) for an {@code acks=all} write to succeed, so every acknowledged record went through
 * the followers' authenticated, encrypted fetches.
 */
class InterBrokerSecurityTest {

    @TempDir
    Path dir;

    /** The brokers' settings; each logs in as {@code broker} with {@code password}. */
    private String[] settings(String password) throws Exception {
        TestCertificates certs = TestCertificates.create(dir.resolve("certs"));
        return new String[] {
            "listeners", "PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0",
            "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_SSL",
            "inter.broker.listener.name", "INTERNAL",
            "sasl.enabled.mechanisms", "PLAIN",
            "sasl.mechanism.inter.broker.protocol", "PLAIN",
            "listener.name.internal.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" "
                    + "password=\"" + password + "\" user_broker=\"broker-secret\";",
            "ssl.keystore.location", certs.brokerKeyStore.toString(),
            "ssl.keystore.type", "PKCS12",
            "ssl.keystore.password", TestCertificates.PASSWORD,
            "ssl.key.password", TestCertificates.PASSWORD,
            "ssl.truststore.location", certs.trustStore.toString(),
            "ssl.truststore.type", "PKCS12",
            "ssl.truststore.password", TestCertificates.PASSWORD,
            // A follower that cannot fetch leaves the ISR after 3 s rather than 30.
            "replica.lag.time.max.ms", "3000"};
    }

    @Test
    void replicasFetchOverSaslSsl() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false, settings("broker-secret"))) {
            cluster.startAll();
            cluster.createTopic("replicated", 2, 3, Map.of("min.insync.replicas", "3"));
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                for (int i = 0; i < 100; i++) {
                    String value = "record-" + i;
                    producer.send(new ProducerRecord<>("replicated", 0, null, value)).get(20, TimeUnit.SECONDS);
                    sent.add(value);
                }
            }
            List<String> read = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrapServers())) {
                TopicPartition partition = new TopicPartition("replicated", 0);
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (read.size() < sent.size() && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        read.add(record.value());
                    }
                }
            }
            assertEquals(sent, read, "every acknowledged record, each written to all three replicas");
        }
    }

    /** The other side of the proof: with a wrong inter-broker password no follower can fetch, so nothing commits. */
    @Test
    void followersWithAWrongPasswordCannotReplicate() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false, settings("not-the-secret"))) {
            cluster.startAll();
            try (Admin admin = cluster.admin()) {
                admin.createTopics(List.of(new NewTopic("unreplicated", 1, (short) 3)
                        .configs(Map.of("min.insync.replicas", "2")))).all().get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                ExecutionException failure = assertThrows(ExecutionException.class, () -> producer.send(
                        new ProducerRecord<>("unreplicated", 0, null, "never")).get(40, TimeUnit.SECONDS));
                assertTrue(failure.getCause() instanceof org.apache.kafka.common.errors.TimeoutException
                        || failure.getCause() instanceof NotEnoughReplicasException, failure.toString());
            }
        }
    }
}
