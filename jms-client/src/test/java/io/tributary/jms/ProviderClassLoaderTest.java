package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.URL;
import java.net.URLClassLoader;

import org.junit.jupiter.api.Test;

/**
 * Kafka clients are created with the provider's class loader as the context class loader, whatever the calling
 * thread's is (an application server's thread may have one that cannot see Kafka), and the caller's is restored.
 * No broker is needed: with {@code connectTimeout} 0 the connection does not ask the cluster, and Kafka clients
 * connect on first use, after construction.
 */
class ProviderClassLoaderTest {

    @Test
    void aProducerIsCreatedOnAThreadWhoseContextLoaderCannotSeeKafka() throws Exception {
        TributaryConnectionFactory factory = new TributaryConnectionFactory("127.0.0.1:1");
        factory.setConnectTimeout(0);
        // A class-valued setting given by name: Kafka loads it through the context class loader.
        factory.setKafkaProperty("producer.partitioner.class",
                "org.apache.kafka.clients.producer.RoundRobinPartitioner");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader blind = new URLClassLoader(new URL[0], null);
             TributaryConnection connection = (TributaryConnection) factory.createConnection()) {
            thread.setContextClassLoader(blind);

            assertNotNull(connection.producer());
            assertNotNull(connection.admin());
            assertSame(blind, thread.getContextClassLoader(), "the caller's context class loader is restored");
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
