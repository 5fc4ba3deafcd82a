package io.tributary.jms.jndi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Properties;

import javax.naming.BinaryRefAddr;
import javax.naming.NamingException;
import javax.naming.RefAddr;
import javax.naming.Reference;
import javax.naming.StringRefAddr;
import javax.naming.spi.NamingManager;

import jakarta.jms.InvalidDestinationException;
import org.junit.jupiter.api.Test;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryObjectFactoryTest {

    private static TributaryConnectionFactory fullyConfigured() {
        TributaryConnectionFactory factory = new TributaryConnectionFactory("kafka-1:9092,kafka-2:9092");
        factory.setClientId("billing");
        factory.setConnectTimeout(2_500);
        factory.setTrustedObjectPackages("com.example.billing,java.util");
        factory.setObjectMessageMaxDepth(12);
        factory.setObjectMessageMaxBytes(65_536);
        factory.setPlainRecordsAsText(true);
        factory.setStartAt("earliest");
        factory.setTransactionalIdPrefix("billing-1");
        factory.setKafkaProperty("security.protocol", "SSL");
        factory.setKafkaProperty("request.timeout.ms", "10000");
        return factory;
    }

    private static void assertSameSettings(TributaryConnectionFactory expected, TributaryConnectionFactory actual) {
        assertEquals(expected.getBootstrapServers(), actual.getBootstrapServers());
        assertEquals(expected.getClientId(), actual.getClientId());
        assertEquals(expected.getConnectTimeout(), actual.getConnectTimeout());
        assertEquals(expected.getTrustedObjectPackages(), actual.getTrustedObjectPackages());
        assertEquals(expected.getObjectMessageLimits(), actual.getObjectMessageLimits());
        assertEquals(expected.isPlainRecordsAsText(), actual.isPlainRecordsAsText());
        assertEquals(expected.getKafkaProperties(), actual.getKafkaProperties());
        assertEquals(expected.getTransactionalIdPrefix(), actual.getTransactionalIdPrefix());
    }

    private static Object resolve(Reference reference) throws NamingException {
        return new TributaryObjectFactory().getObjectInstance(reference, null, null, new Hashtable<>());
    }

    @Test
    void aFactorysReferenceHoldsEverySettingAsAStringAddress() {
        Reference reference = fullyConfigured().getReference();
        assertEquals("io.tributary.jms.TributaryConnectionFactory", reference.getClassName());
        assertEquals("io.tributary.jms.jndi.TributaryObjectFactory", reference.getFactoryClassName());
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < reference.size(); i++) {
            RefAddr address = reference.get(i);
            assertInstanceOf(StringRefAddr.class, address);
            addresses.add(address.getType() + "=" + address.getContent());
        }
        assertEquals(List.of("bootstrapServers=kafka-1:9092,kafka-2:9092", "clientId=billing", "connectTimeout=2500",
                "trustedObjectPackages=com.example.billing,java.util", "objectMessageMaxDepth=12",
                "objectMessageMaxBytes=65536", "plainRecordsAsText=true", "startAt=earliest",
                "transactionalIdPrefix=billing-1", "kafka.request.timeout.ms=10000", "kafka.security.protocol=SSL"), addresses);
    }

    @Test
    void aFactorysReferenceRebuildsAnEquallyConfiguredFactory() throws Exception {
        TributaryConnectionFactory original = fullyConfigured();
        TributaryConnectionFactory rebuilt = (TributaryConnectionFactory) resolve(original.getReference());
        assertNotSame(original, rebuilt);
        assertSameSettings(original, rebuilt);

        // The path a JNDI provider takes: the factory class named in the reference, loaded by NamingManager.
        Object viaJndi = NamingManager.getObjectInstance(original.getReference(), null, null, new Hashtable<>());
        assertSameSettings(original, (TributaryConnectionFactory) viaJndi);
    }

    @Test
    void anUnconfiguredFactoryRoundTripsWithItsDefaults() throws NamingException {
        TributaryConnectionFactory original = new TributaryConnectionFactory();
        Reference reference = original.getReference();
        assertNull(reference.get("clientId"), "an unset client id is left out, not stored as a string");
        assertNull(reference.get("trustedObjectPackages"));
        assertNull(reference.get("transactionalIdPrefix"), "no prefix: a random one per connection");
        assertSameSettings(original, (TributaryConnectionFactory) resolve(reference));
    }

    @Test
    void anEmptyAllowListIsKeptDistinctFromTheDefault() throws NamingException {
        TributaryConnectionFactory original = new TributaryConnectionFactory();
        original.setTrustedObjectPackages("");
        assertEquals("", ((TributaryConnectionFactory) resolve(original.getReference())).getTrustedObjectPackages());
    }

    @Test
    void queuesAndTopicsRoundTripThroughTheirReferences() throws Exception {
        TributaryQueue queue = TributaryQueue.of("orders.eu");
        Reference queueReference = queue.getReference();
        assertEquals("io.tributary.jms.TributaryQueue", queueReference.getClassName());
        assertEquals("io.tributary.jms.jndi.TributaryObjectFactory", queueReference.getFactoryClassName());
        assertEquals("orders.eu", queueReference.get("name").getContent());
        assertEquals(queue, resolve(queueReference));

        TributaryTopic topic = TributaryTopic.of("prices");
        assertEquals("io.tributary.jms.TributaryTopic", topic.getReference().getClassName());
        assertEquals(topic, NamingManager.getObjectInstance(topic.getReference(), null, null, null));
    }

    @Test
    void referencesToOtherClassesAndOtherObjectsAreLeftToOtherFactories() throws NamingException {
        Reference foreign = new Reference("org.example.Factory", TributaryObjectFactory.class.getName(), null);
        assertNull(resolve(foreign));
        assertNull(new TributaryObjectFactory().getObjectInstance("not a reference", null, null, null));
    }

    @Test
    void anUnknownAddressIsANamingExceptionNamingIt() {
        Reference reference = new TributaryConnectionFactory().getReference();
        reference.add(new StringRefAddr("clientID", "typo"));
        NamingException e = assertThrows(NamingException.class, () -> resolve(reference));
        assertTrue(e.getMessage().contains("'clientID'"), e.getMessage());
        assertTrue(e.getMessage().contains("TributaryConnectionFactory"), e.getMessage());
    }

    @Test
    void anIllegalValueIsANamingExceptionNamingTheAddressWithTheSettersErrorAsCause() {
        Reference reference = new TributaryConnectionFactory().getReference();
        reference.add(new StringRefAddr("trustedObjectPackages", "com.example,not a package"));
        NamingException e = assertThrows(NamingException.class, () -> resolve(reference));
        assertTrue(e.getMessage().contains("'trustedObjectPackages'"), e.getMessage());
        assertInstanceOf(IllegalArgumentException.class, e.getCause());

        Reference bool = new TributaryConnectionFactory().getReference();
        bool.add(new StringRefAddr("plainRecordsAsText", "1"));
        NamingException boolError = assertThrows(NamingException.class, () -> resolve(bool));
        assertTrue(boolError.getMessage().contains("'plainRecordsAsText'"), boolError.getMessage());

        Reference binary = new TributaryConnectionFactory().getReference();
        binary.add(new BinaryRefAddr("clientId", new byte[] {1}));
        NamingException binaryError = assertThrows(NamingException.class, () -> resolve(binary));
        assertTrue(binaryError.getMessage().contains("'clientId'"), binaryError.getMessage());
        assertTrue(binaryError.getMessage().contains("expected a string"), binaryError.getMessage());
    }

    @Test
    void aDestinationReferenceWithAnIllegalOrMissingNameIsRefused() throws InvalidDestinationException {
        Reference illegal = new Reference(TributaryQueue.class.getName(), new StringRefAddr("name", "a b"),
                TributaryObjectFactory.class.getName(), null);
        NamingException e = assertThrows(NamingException.class, () -> resolve(illegal));
        assertTrue(e.getMessage().contains("'a b'"), e.getMessage());
        assertInstanceOf(InvalidDestinationException.class, e.getCause());

        Reference missing = new Reference(TributaryTopic.class.getName(), new StringRefAddr("topicName", "prices"),
                TributaryObjectFactory.class.getName(), null);
        NamingException missingError = assertThrows(NamingException.class, () -> resolve(missing));
        assertTrue(missingError.getMessage().contains("'name'"), missingError.getMessage());
        assertTrue(missingError.getMessage().contains("[topicName]"), missingError.getMessage());
    }

    @Test
    void aFactorySurvivesJavaSerializationWithEverySetting() throws IOException, ClassNotFoundException {
        TributaryConnectionFactory original = fullyConfigured();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(original);
        }
        TributaryConnectionFactory copy;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (TributaryConnectionFactory) in.readObject();
        }
        assertSameSettings(original, copy);

        Properties kafka = copy.getKafkaProperties();
        kafka.setProperty("acks", "all");
        assertEquals(2, copy.getKafkaProperties().size(), "the copy's settings are its own");
    }
}
