package io.tributary.jms.jndi;

import java.io.IOException;
import java.io.Writer;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Hashtable;
import java.util.Properties;

import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NamingException;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.Topic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryInitialContextFactoryTest {

    /** An InitialContext on Tributary's factory with the given key, value, key, value... entries. */
    static InitialContext context(String... entries) throws NamingException {
        Hashtable<String, Object> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, TributaryInitialContextFactory.class.getName());
        for (int i = 0; i < entries.length; i += 2) {
            env.put(entries[i], entries[i + 1]);
        }
        return new InitialContext(env);
    }

    @Test
    void declaredFactoriesQueuesAndTopicsAreLookedUpByName() throws NamingException, JMSException {
        InitialContext context = context(
                "connectionFactory.local", "127.0.0.1:9092",
                "connectionFactory.remote", "kafka-1:9092,kafka-2:9092",
                "queue.orders", "orders",
                "queue.jms/eu.invoices", "invoices.eu",
                "topic.prices", "market.prices");

        ConnectionFactory local = (ConnectionFactory) context.lookup("local");
        assertEquals("127.0.0.1:9092", ((TributaryConnectionFactory) local).getBootstrapServers());
        TributaryConnectionFactory remote = (TributaryConnectionFactory) context.lookup("remote");
        assertEquals("kafka-1:9092,kafka-2:9092", remote.getBootstrapServers());
        assertEquals(TributaryQueue.class, context.lookup("orders").getClass());
        assertEquals("orders", ((Queue) context.lookup("orders")).getQueueName());
        assertEquals("invoices.eu", ((Queue) context.lookup("jms/eu.invoices")).getQueueName());
        assertEquals("market.prices", ((Topic) context.lookup("prices")).getTopicName());
        assertInstanceOf(TributaryTopic.class, context.lookup("prices"));
        assertSame(local, context.lookup("local"), "one factory per declaration");
    }

    @Test
    void factoryPropertiesAreApplied() throws NamingException {
        InitialContext context = context(
                "connectionFactory.billing", " kafka:9093 ",
                "connectionFactory.billing.clientId", "billing-app ",
                "connectionFactory.billing.trustedObjectPackages", "com.example.billing,java.util",
                "connectionFactory.billing.plainRecordsAsText", "TRUE",
                "connectionFactory.billing.transactionalIdPrefix", "billing-1",
                "connectionFactory.billing.kafka.security.protocol", "SSL",
                "connectionFactory.billing.kafka.request.timeout.ms", "10000");

        TributaryConnectionFactory factory = (TributaryConnectionFactory) context.lookup("billing");
        assertEquals("kafka:9093", factory.getBootstrapServers());
        assertEquals("billing-app", factory.getClientId(), "trailing blanks of a properties file are stripped");
        assertEquals("com.example.billing,java.util", factory.getTrustedObjectPackages());
        assertTrue(factory.isPlainRecordsAsText());
        assertEquals("billing-1", factory.getTransactionalIdPrefix());
        Properties expected = new Properties();
        expected.setProperty("security.protocol", "SSL");
        expected.setProperty("request.timeout.ms", "10000");
        assertEquals(expected, factory.getKafkaProperties());
    }

    @Test
    void factoriesKeepTheirDefaultsWhenNoPropertyIsGiven() throws NamingException {
        TributaryConnectionFactory factory =
                (TributaryConnectionFactory) context("connectionFactory.plain", "h:1").lookup("plain");
        assertNull(factory.getClientId());
        assertNull(factory.getTrustedObjectPackages());
        assertFalse(factory.isPlainRecordsAsText());
        assertNull(factory.getTransactionalIdPrefix());
        assertTrue(factory.getKafkaProperties().isEmpty());
    }

    @Test
    void withoutAFactoryDeclarationConnectionFactoryNamesOneForTheProviderUrl() throws NamingException {
        TributaryConnectionFactory byUrl = (TributaryConnectionFactory)
                context(Context.PROVIDER_URL, "broker-a:9092,broker-b:9092", "queue.orders", "orders")
                        .lookup("ConnectionFactory");
        assertEquals("broker-a:9092,broker-b:9092", byUrl.getBootstrapServers());

        TributaryConnectionFactory byDefault =
                (TributaryConnectionFactory) context().lookup("ConnectionFactory");
        assertEquals("127.0.0.1:9092", byDefault.getBootstrapServers());
    }

    @Test
    void aFactoryDeclarationReplacesTheDefaultFactory() throws NamingException {
        InitialContext context = context(Context.PROVIDER_URL, "ignored:1", "connectionFactory.local", "h:1");
        NamingException e = assertThrows(NamingException.class, () -> context.lookup("ConnectionFactory"));
        assertTrue(e.getMessage().contains("[local]"), e.getMessage());
    }

    @Test
    void entriesOfOtherProvidersAreLeftAlone() throws NamingException {
        InitialContext context = context("connectionfactory.qpid", "amqp://localhost", "java.naming.security.principal",
                "me", "queues", "x");
        assertInstanceOf(TributaryConnectionFactory.class, context.lookup("ConnectionFactory"));
        assertEquals("me", context.getEnvironment().get("java.naming.security.principal"));
    }

    @Test
    void anIllegalTopicNameFailsTheContextNamingTheEntry() {
        NamingException e = assertThrows(NamingException.class, () -> context("queue.orders", "orders/eu"));
        assertTrue(e.getMessage().contains("queue.orders"), e.getMessage());
        assertTrue(e.getMessage().contains("'orders/eu'"), e.getMessage());
        assertInstanceOf(InvalidDestinationException.class, e.getCause());

        NamingException topic = assertThrows(NamingException.class, () -> context("topic.prices", ""));
        assertTrue(topic.getMessage().contains("topic.prices"), topic.getMessage());
    }

    @Test
    void anUnknownFactoryPropertyFailsTheContextNamingTheEntry() {
        NamingException e = assertThrows(NamingException.class, () -> context(
                "connectionFactory.local", "h:1", "connectionFactory.local.clientid", "typo"));
        assertTrue(e.getMessage().contains("connectionFactory.local.clientid"), e.getMessage());
        assertTrue(e.getMessage().contains("unknown connection factory property 'clientid'"), e.getMessage());
        assertTrue(e.getMessage().contains("clientId"), "lists the known properties: " + e.getMessage());
    }

    @Test
    void aPropertyOfAnUndeclaredFactoryFailsTheContext() {
        NamingException e = assertThrows(NamingException.class,
                () -> context("connectionFactory.local.clientId", "app"));
        assertTrue(e.getMessage().contains("connectionFactory.local.clientId"), e.getMessage());
        assertTrue(e.getMessage().contains("add connectionFactory.local=<bootstrap servers>"), e.getMessage());
    }

    @Test
    void illegalFactoryValuesFailTheContextNamingTheEntry() {
        NamingException bool = assertThrows(NamingException.class, () -> context(
                "connectionFactory.local", "h:1", "connectionFactory.local.plainRecordsAsText", "yes"));
        assertTrue(bool.getMessage().contains("connectionFactory.local.plainRecordsAsText"), bool.getMessage());
        assertTrue(bool.getMessage().contains("true or false, not 'yes'"), bool.getMessage());

        NamingException allowList = assertThrows(NamingException.class, () -> context(
                "connectionFactory.local", "h:1", "connectionFactory.local.trustedObjectPackages", "com.example,1bad"));
        assertTrue(allowList.getMessage().contains("connectionFactory.local.trustedObjectPackages"),
                allowList.getMessage());
        assertTrue(allowList.getMessage().contains("'1bad'"), allowList.getMessage());
        assertInstanceOf(IllegalArgumentException.class, allowList.getCause());

        NamingException servers = assertThrows(NamingException.class, () -> context("connectionFactory.local", " "));
        assertTrue(servers.getMessage().contains("connectionFactory.local"), servers.getMessage());
        assertTrue(servers.getMessage().contains("host:port"), servers.getMessage());

        NamingException kafka = assertThrows(NamingException.class, () -> context(
                "connectionFactory.local", "h:1", "connectionFactory.local.kafka.", "x"));
        assertTrue(kafka.getMessage().contains("connectionFactory.local.kafka."), kafka.getMessage());
    }

    @Test
    void bootstrapServersAreTheDeclarationsValueNotAProperty() {
        NamingException e = assertThrows(NamingException.class, () -> context(
                "connectionFactory.local", "h:1", "connectionFactory.local.bootstrapServers", "h:2"));
        assertTrue(e.getMessage().contains("connectionFactory.local.bootstrapServers"), e.getMessage());
    }

    @Test
    void entriesThatNameNothingFailTheContext() {
        for (String key : new String[] {"queue.", "topic.", "connectionFactory.", "connectionFactory..clientId"}) {
            NamingException e = assertThrows(NamingException.class, () -> context(key, "x"), key);
            assertTrue(e.getMessage().contains(key), e.getMessage());
        }
    }

    @Test
    void twoEntriesBindingOneNameFailTheContextNamingBoth() {
        NamingException e = assertThrows(NamingException.class, () -> context(
                "queue.orders", "orders", "topic.orders", "orders"));
        assertTrue(e.getMessage().contains("queue.orders"), e.getMessage());
        assertTrue(e.getMessage().contains("topic.orders"), e.getMessage());

        NamingException withDefault = assertThrows(NamingException.class, () -> context(
                "queue.ConnectionFactory", "orders"));
        assertTrue(withDefault.getMessage().contains("queue.ConnectionFactory"), withDefault.getMessage());
        assertTrue(withDefault.getMessage().contains("default connection factory"), withDefault.getMessage());
    }

    @Test
    void aNonStringDeclarationFailsTheContext() {
        Hashtable<String, Object> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, TributaryInitialContextFactory.class.getName());
        env.put("connectionFactory.local", "h:1");
        env.put("connectionFactory.local.plainRecordsAsText", Boolean.TRUE);
        NamingException e = assertThrows(NamingException.class, () -> new InitialContext(env));
        assertTrue(e.getMessage().contains("connectionFactory.local.plainRecordsAsText"), e.getMessage());
        assertTrue(e.getMessage().contains("java.lang.Boolean"), e.getMessage());
    }

    @Test
    void jndiPropertiesOnTheClassPathAreRead(@TempDir Path dir) throws IOException, NamingException,
            InvalidDestinationException {
        try (Writer out = Files.newBufferedWriter(dir.resolve("jndi.properties"), StandardCharsets.ISO_8859_1)) {
            out.write("java.naming.factory.initial = io.tributary.jms.jndi.TributaryInitialContextFactory\n"
                    + "connectionFactory.local = 127.0.0.1:19092\n"
                    + "connectionFactory.local.clientId = from-file\n"
                    + "queue.orders = orders\n");
        }
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        // JNDI reads jndi.properties through the context class loader.
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, original)) {
            thread.setContextClassLoader(loader);
            InitialContext context = new InitialContext();
            TributaryConnectionFactory factory = (TributaryConnectionFactory) context.lookup("local");
            assertEquals("127.0.0.1:19092", factory.getBootstrapServers());
            assertEquals("from-file", factory.getClientId());
            assertEquals(TributaryQueue.of("orders"), context.lookup("orders"));
            context.close();
        } finally {
            thread.setContextClassLoader(original);
        }
    }
}
