package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.function.Consumer;

import javax.naming.NameNotFoundException;

import io.tributary.jms.StartPosition;
import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;
import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.message.ObjectMessageLimits;
import io.tributary.ra.TributaryResourceAdapter;
import jakarta.resource.spi.InvalidPropertyException;
import org.junit.jupiter.api.Test;

/**
 * The activation spec's properties: defaults, what each becomes, and validate() refusing wrong values and
 * combinations with a message that starts with the property's name.
 */
class ActivationConfigTest {

    private static TributaryActivationSpec spec(Consumer<TributaryActivationSpec> settings) {
        TributaryActivationSpec spec = new TributaryActivationSpec();
        settings.accept(spec);
        return spec;
    }

    private static ActivationConfig resolve(TributaryActivationSpec spec) throws InvalidPropertyException {
        return ActivationSpecResolver.resolve(spec, null, null);
    }

    private static void assertRejected(String property, Consumer<TributaryActivationSpec> settings) {
        TributaryActivationSpec spec = spec(settings);
        InvalidPropertyException e = assertThrows(InvalidPropertyException.class, spec::validate);
        assertTrue(e.getMessage().startsWith(property + " "), () -> "expected a message about " + property + ": "
                + e.getMessage());
    }

    @Test
    void aQueueByNameTakesTheDefaults() throws Exception {
        ActivationConfig config = resolve(spec(s -> s.setDestination("orders")));
        assertEquals(Subscription.Kind.QUEUE, config.subscription().kind());
        assertEquals("orders", config.subscription().groupId());
        assertEquals("earliest", config.subscription().resetPolicy());
        assertEquals(TributaryQueue.of("orders"), config.destination());
        assertEquals(ActivationConfig.AcknowledgeMode.AUTO, config.acknowledgeMode());
        assertEquals(StartPosition.committed(), config.startAt());
        assertEquals(15, config.maxSession());
        assertEquals(5, config.maxRedeliveries());
        assertEquals(500, config.redeliveryDelayMs());
        assertNull(config.deadLetterTopic());
        assertEquals("127.0.0.1:9092", config.bootstrapServers());
        assertTrue(config.selector().matchesAll());
        assertFalse(config.plainRecordsAsText());
        assertEquals(ObjectMessageLimits.DEFAULT, config.objectLimits());
    }

    @Test
    void aQueueIsConsumedThroughItsShareGroupUnlessQueueModeIsGroup() throws Exception {
        ActivationConfig share = resolve(spec(s -> s.setDestination("orders")));
        assertEquals(QueueMode.SHARE, share.queueMode());
        assertTrue(share.sharesQueue());
        assertEquals(new DeadLetterPolicy(5, null), share.deadLetterPolicy(5), "maxRedeliveries 5, the limit 5");
        ActivationConfig group = resolve(spec(s -> {
            s.setDestination("orders");
            s.setQueueMode(" Group ");
        }));
        assertEquals(QueueMode.GROUP, group.queueMode());
        assertFalse(group.sharesQueue());
        ActivationConfig topic = resolve(spec(s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
        }));
        assertFalse(topic.sharesQueue(), "topics ignore queueMode");
        assertEquals(new DeadLetterPolicy(3, "orders.DLQ"), resolve(spec(s -> {
            s.setDestination("orders");
            s.setMaxRedeliveries(2);
            s.setDeadLetterDestination("orders.DLQ");
        })).deadLetterPolicy(5));
        assertEquals(1, resolve(spec(s -> {
            s.setDestination("orders");
            s.setMaxRedeliveries(0);
        })).deadLetterPolicy(5).maxDeliveries());
    }

    @Test
    void aWrongQueueModeOrAReplayOfAShareGroupQueueIsRefused() throws Exception {
        assertRejected("queueMode", s -> {
            s.setDestination("orders");
            s.setQueueMode("partitioned");
        });
        assertRejected("startAt", s -> {
            s.setDestination("orders");
            s.setStartAt("earliest");
        });
        assertEquals(StartPosition.Kind.EARLIEST, resolve(spec(s -> {
            s.setDestination("orders");
            s.setQueueMode("group");
            s.setStartAt("earliest");
        })).startAt().kind());
    }

    @Test
    void topicSubscriptionsUseTheJmsProvidersGroupNames() throws Exception {
        assertNull(resolve(spec(s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
        })).subscription().groupId());
        Subscription durable = resolve(spec(s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
            s.setSubscriptionDurability("Durable");
            s.setClientId("billing");
            s.setSubscriptionName("audit");
        })).subscription();
        assertEquals(Subscription.Kind.DURABLE, durable.kind());
        assertEquals("jms.durable.billing.audit", durable.groupId());
        assertEquals("latest", durable.resetPolicy());
        assertEquals("jms.shared-durable.audit", resolve(spec(s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
            s.setSubscriptionDurability("durable");
            s.setShareSubscriptions(true);
            s.setSubscriptionName("audit");
        })).subscription().groupId());
        assertEquals("jms.shared.billing.ticks", resolve(spec(s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
            s.setShareSubscriptions(true);
            s.setClientId("billing");
            s.setSubscriptionName("ticks");
        })).subscription().groupId());
    }

    @Test
    void queuesIgnoreSubscriptionProperties() throws Exception {
        Subscription queue = resolve(spec(s -> {
            s.setDestination("orders");
            s.setSubscriptionDurability("Durable");
            s.setShareSubscriptions(true);
        })).subscription();
        assertEquals("orders", queue.groupId());
    }

    @Test
    void validateNamesTheWrongProperty() {
        assertRejected("destination", s -> { });
        assertRejected("destination", s -> s.setDestination("no spaces"));
        assertRejected("destinationType", s -> {
            s.setDestination("orders");
            s.setDestinationType("javax.jms.Queue");
        });
        assertRejected("subscriptionName", s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
            s.setSubscriptionDurability("Durable");
            s.setClientId("c");
        });
        assertRejected("clientId", s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
            s.setSubscriptionDurability("Durable");
            s.setSubscriptionName("audit");
        });
        assertRejected("subscriptionName", s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
            s.setShareSubscriptions(true);
        });
        assertRejected("subscriptionDurability", s -> {
            s.setDestination("orders");
            s.setSubscriptionDurability("Sometimes");
        });
        assertRejected("acknowledgeMode", s -> {
            s.setDestination("orders");
            s.setAcknowledgeMode("Client-acknowledge");
        });
        assertRejected("messageSelector", s -> {
            s.setDestination("orders");
            s.setMessageSelector("region = ");
        });
        assertRejected("maxSession", s -> {
            s.setDestination("orders");
            s.setMaxSession(0);
        });
        assertRejected("maxRedeliveries", s -> {
            s.setDestination("orders");
            s.setMaxRedeliveries(-1);
        });
        assertRejected("redeliveryDelay", s -> {
            s.setDestination("orders");
            s.setRedeliveryDelay(-1L);
        });
        assertRejected("startAt", s -> {
            s.setDestination("orders");
            s.setStartAt("yesterday");
        });
        assertRejected("deadLetterDestination", s -> {
            s.setDestination("orders");
            s.setDeadLetterDestination("orders");
        });
        assertRejected("deadLetterDestination", s -> {
            s.setDestination("orders");
            s.setDeadLetterDestination("dead letters");
        });
        assertRejected("kafkaProperties", s -> {
            s.setDestination("orders");
            s.setKafkaProperties("fetch.min.bytes");
        });
        assertRejected("kafkaProperties", s -> {
            s.setDestination("orders");
            s.setKafkaProperties("consumer.group.id=other");
        });
        assertRejected("kafkaProperties", s -> {
            s.setDestination("orders");
            s.setKafkaProperties("auto.offset.reset=earliest");
        });
        assertRejected("trustedObjectPackages", s -> {
            s.setDestination("orders");
            s.setTrustedObjectPackages("com..example");
        });
        assertRejected("objectMessageMaxDepth", s -> {
            s.setDestination("orders");
            s.setObjectMessageMaxDepth(0L);
        });
        assertRejected("objectMessageMaxBytes", s -> {
            s.setDestination("orders");
            s.setObjectMessageMaxBytes(-1L);
        });
        assertRejected("user", s -> {
            s.setDestination("orders");
            s.setUser("alice");
            s.setPassword("secret");
        });
        assertRejected("password", s -> {
            s.setDestination("orders");
            s.setPassword("secret");
        });
    }

    @Test
    void validateAcceptsADestinationKnownOnlyByItsJndiName() throws Exception {
        TributaryActivationSpec spec = spec(s -> s.setDestinationLookup("java:global/jms/orders"));
        spec.validate();
        assertNull(resolve(spec));
    }

    @Test
    void destinationLookupResolvesTheKindAndName() throws Exception {
        Map<String, Object> jndi = Map.of("java:/jms/prices", TributaryTopic.of("prices"),
                "java:/jms/orders", TributaryQueue.of("orders"), "java:/other", "a string");
        ActivationConfig config = ActivationSpecResolver.resolve(spec(s -> s.setDestinationLookup("java:/jms/prices")),
                null, jndi::get);
        assertEquals(Subscription.Kind.NON_DURABLE, config.subscription().kind());
        assertEquals("prices", config.topic());

        InvalidPropertyException mismatch = assertThrows(InvalidPropertyException.class, () ->
                ActivationSpecResolver.resolve(spec(s -> {
                    s.setDestinationLookup("java:/jms/orders");
                    s.setDestinationType("jakarta.jms.Topic");
                }), null, jndi::get));
        assertTrue(mismatch.getMessage().startsWith("destinationType "), mismatch.getMessage());
        InvalidPropertyException notADestination = assertThrows(InvalidPropertyException.class, () ->
                ActivationSpecResolver.resolve(spec(s -> s.setDestinationLookup("java:/other")), null, jndi::get));
        assertTrue(notADestination.getMessage().startsWith("destinationLookup "), notADestination.getMessage());
        InvalidPropertyException missing = assertThrows(InvalidPropertyException.class, () ->
                ActivationSpecResolver.resolve(spec(s -> s.setDestinationLookup("java:/missing")), null, name -> {
                    throw new NameNotFoundException(name);
                }));
        assertTrue(missing.getMessage().startsWith("destinationLookup "), missing.getMessage());
        assertInstanceOf(NameNotFoundException.class, missing.getCause());
    }

    @Test
    void settingsComeFromTheSpecThenTheConnectionFactoryThenTheResourceAdapter() throws Exception {
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("ra-host:9092");
        ra.setKafkaProperties("fetch.min.bytes=1;client.rack=ra;consumer.fetch.max.wait.ms=100");
        TributaryConnectionFactory factory = new TributaryConnectionFactory("cf-host:9092");
        factory.setClientId("cf-client");
        factory.setKafkaProperty("client.rack", "cf");
        factory.setPlainRecordsAsText(true);
        Map<String, Object> jndi = Map.of("java:/cf", factory);

        ActivationConfig fromRa = ActivationSpecResolver.resolve(spec(s -> s.setDestination("orders")), ra, jndi::get);
        assertEquals("ra-host:9092", fromRa.bootstrapServers());
        Map<String, Object> consumer = fromRa.consumerProperties("c1");
        assertEquals("ra", consumer.get("client.rack"));
        assertEquals("100", consumer.get("fetch.max.wait.ms"));
        assertEquals("orders", consumer.get("group.id"));
        assertEquals(false, consumer.get("enable.auto.commit"));
        assertFalse(fromRa.producerProperties("p1").containsKey("fetch.max.wait.ms"));

        ActivationConfig viaFactory = ActivationSpecResolver.resolve(spec(s -> {
            s.setDestination("prices");
            s.setDestinationType("jakarta.jms.Topic");
            s.setSubscriptionDurability("Durable");
            s.setSubscriptionName("audit");
            s.setConnectionFactoryLookup("java:/cf");
            s.setKafkaProperties("consumer.client.rack=spec");
        }), ra, jndi::get);
        assertEquals("cf-host:9092", viaFactory.bootstrapServers());
        assertEquals("jms.durable.cf-client.audit", viaFactory.subscription().groupId());
        assertEquals("spec", viaFactory.consumerProperties("c2").get("client.rack"));
        assertEquals("cf", viaFactory.producerProperties("p2").get("client.rack"));
        assertTrue(viaFactory.plainRecordsAsText());

        ActivationConfig ownServers = ActivationSpecResolver.resolve(spec(s -> {
            s.setDestination("orders");
            s.setBootstrapServers("spec-host:9092");
            s.setConnectionFactoryLookup("java:/cf");
        }), ra, jndi::get);
        assertEquals("spec-host:9092", ownServers.bootstrapServers());

        InvalidPropertyException notAFactory = assertThrows(InvalidPropertyException.class, () ->
                ActivationSpecResolver.resolve(spec(s -> {
                    s.setDestination("orders");
                    s.setConnectionFactoryLookup("java:/wrong");
                }), ra, Map.<String, Object>of("java:/wrong", "text")::get));
        assertTrue(notAFactory.getMessage().startsWith("connectionFactoryLookup "), notAFactory.getMessage());
    }

    @Test
    void userAndPasswordBecomeASaslLoginOverASaslProtocol() throws Exception {
        ActivationConfig config = resolve(spec(s -> {
            s.setDestination("orders");
            s.setUser("alice");
            s.setPassword("p\"w");
            s.setKafkaProperties("security.protocol=SASL_PLAINTEXT;sasl.mechanism=SCRAM-SHA-512");
        }));
        assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\""
                + " password=\"p\\\"w\";", config.consumerProperties("c").get("sasl.jaas.config"));
        assertEquals(config.consumerProperties("c").get("sasl.jaas.config"),
                config.producerProperties("p").get("sasl.jaas.config"));
    }

    @Test
    void kafkaPropertiesTextSplitsOnSemicolonsWithEscapes() throws Exception {
        ActivationConfig config = resolve(spec(s -> {
            s.setDestination("orders");
            s.setKafkaProperties(" client.rack = 1 ; consumer.client.id.prefix=x\\;y;;metadata.max.age.ms=d=e;");
        }));
        Map<String, Object> consumer = config.consumerProperties("c");
        assertEquals("1", consumer.get("client.rack"));
        assertEquals("x;y", consumer.get("client.id.prefix"));
        assertEquals("d=e", consumer.get("metadata.max.age.ms"));
        assertRejected("kafkaProperties", s -> {
            s.setDestination("orders");
            s.setKafkaProperties("=1");
        });
        assertThrows(IllegalArgumentException.class, () -> new TributaryResourceAdapter().setKafkaProperties("x"));
    }

    @Test
    void replayAndRedeliverySettingsAreTyped() throws Exception {
        ActivationConfig config = resolve(spec(s -> {
            s.setDestination("orders");
            s.setQueueMode("group");
            s.setStartAt("0:120,1:98");
            s.setMaxRedeliveries(0);
            s.setRedeliveryDelay(0L);
            s.setMaxSession(6);
            s.setDeadLetterDestination("orders.DLQ");
            s.setAcknowledgeMode("Dups-ok-acknowledge");
            s.setMessageSelector("region = 'EU'");
        }));
        assertEquals(StartPosition.offsets(Map.of(0, 120L, 1, 98L)), config.startAt());
        assertEquals(0, config.maxRedeliveries());
        assertEquals(0, config.redeliveryDelayMs());
        assertEquals(6, config.maxSession());
        assertEquals("orders.DLQ", config.deadLetterTopic());
        assertEquals(ActivationConfig.AcknowledgeMode.DUPS_OK, config.acknowledgeMode());
        assertEquals("region = 'EU'", config.selector().text());
    }

    @Test
    void objectMessageLimitsOfTheSpecWinOverTheLookedUpFactorysNameByName() throws Exception {
        TributaryConnectionFactory factory = new TributaryConnectionFactory();
        factory.setObjectMessageMaxDepth(5);
        factory.setObjectMessageMaxBytes(1_000);
        Map<String, Object> jndi = Map.of("java:/cf", factory);
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination("orders");
            s.setConnectionFactoryLookup("java:/cf");
            s.setObjectMessageMaxBytes(2_000L);
            s.setObjectMessageMaxReferences(300L);
        });
        ActivationConfig config = ActivationSpecResolver.resolve(spec, null, jndi::get);
        assertEquals(new ObjectMessageLimits(5, 300, ObjectMessageLimits.DEFAULT_MAX_ARRAY_LENGTH, 2_000),
                config.objectLimits());
    }

    @Test
    void aPrefixedKafkaPropertyBeatsTheSameOneWithoutPrefixAndOwnedOnesAreRefusedSayingWhy() throws Exception {
        ActivationConfig config = resolve(spec(s -> {
            s.setDestination("orders");
            s.setKafkaProperties("consumer.fetch.min.bytes=2;fetch.min.bytes=1;producer.linger.ms=5;linger.ms=4");
        }));
        assertEquals("2", config.consumerProperties("c").get("fetch.min.bytes"));
        assertEquals("5", config.producerProperties("p").get("linger.ms"));
        assertEquals("4", config.consumerProperties("c").get("linger.ms"));

        InvalidPropertyException refused = assertThrows(InvalidPropertyException.class, () -> resolve(spec(s -> {
            s.setDestination("orders");
            s.setKafkaProperties("consumer.enable.auto.commit=true");
        })));
        assertTrue(refused.getMessage().startsWith("kafkaProperties sets 'consumer.enable.auto.commit': Tributary"
                + " commits offsets"), refused.getMessage());
    }
}
