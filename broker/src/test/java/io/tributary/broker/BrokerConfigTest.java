package io.tributary.broker;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.tributary.broker.storage.CleanupPolicy;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrokerConfigTest {

    @Test
    void defaultsAreKafkasForADevelopmentBroker() {
        BrokerConfig config = BrokerConfig.parse(Map.of());
        assertEquals(0, config.brokerId);
        assertEquals(List.of(new BrokerConfig.Endpoint("PLAINTEXT", "127.0.0.1", 9092)), config.listeners);
        assertEquals(config.listeners, config.advertisedListeners);
        assertEquals(List.of(Path.of("./data/logs").toAbsolutePath().normalize()), config.logDirs);
        assertNull(config.zookeeperConnect);
        assertEquals(1, config.numPartitions);
        assertEquals(1, config.defaultReplicationFactor);
        assertTrue(config.autoCreateTopicsEnable);
        assertEquals(100 * 1024 * 1024, config.socketRequestMaxBytes);
        assertEquals(168 * 3_600_000L, config.defaultLogConfig().retentionMs);
        assertEquals(1024 * 1024 + 12, config.defaultLogConfig().maxMessageBytes);
    }

    @Test
    void logPropertiesBecomeTopicDefaults() {
        BrokerConfig config = BrokerConfig.parse(Map.of(
                "log.segment.bytes", "1048576",
                "log.retention.hours", "1",
                "log.retention.minutes", "5",
                "log.cleanup.policy", "compact,delete",
                "log.message.timestamp.type", "LogAppendTime",
                "message.max.bytes", "2000"));
        assertEquals(1048576, config.defaultLogConfig().segmentBytes);
        assertEquals(5 * 60_000L, config.defaultLogConfig().retentionMs, "the finest unit given wins");
        assertEquals(java.util.Set.of(CleanupPolicy.COMPACT, CleanupPolicy.DELETE),
                config.defaultLogConfig().cleanupPolicy);
        assertEquals(TimestampType.LOG_APPEND_TIME, config.defaultLogConfig().timestampType);
        assertEquals(2000, config.defaultLogConfig().maxMessageBytes);
    }

    @Test
    void negativeRetentionMeansForever() {
        assertEquals(-1L, BrokerConfig.parse(Map.of("log.retention.ms", "-5")).defaultLogConfig().retentionMs);
    }

    @Test
    void logDirsWinOverLogDirAndListsAreSplit() {
        BrokerConfig config = BrokerConfig.parse(Map.of("log.dir", "/ignored", "log.dirs", "/a, /b"));
        assertEquals(List.of(Path.of("/a"), Path.of("/b")), config.logDirs);
    }

    @Test
    void listenersAndAdvertisedListenersAreParsed() {
        BrokerConfig config = BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://0.0.0.0:19092",
                "advertised.listeners", "PLAINTEXT://broker1.example:19092"));
        assertEquals(new BrokerConfig.Endpoint("PLAINTEXT", "0.0.0.0", 19092), config.listeners.get(0));
        assertEquals(new BrokerConfig.Endpoint("PLAINTEXT", "broker1.example", 19092),
                config.advertisedListeners.get(0));
    }

    @Test
    void unknownPropertyIsRefusedByName() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> BrokerConfig.parse(Map.of("log.retention.hourz", "1")));
        assertTrue(e.getMessage().contains("log.retention.hourz"), e.getMessage());
    }

    @Test
    void badValuesAreRefusedNamingThePropertyAndWhatItAccepts() {
        ConfigException notANumber = assertThrows(ConfigException.class,
                () -> BrokerConfig.parse(Map.of("num.partitions", "many")));
        assertTrue(notANumber.getMessage().contains("num.partitions"), notANumber.getMessage());
        ConfigException outOfRange = assertThrows(ConfigException.class,
                () -> BrokerConfig.parse(Map.of("num.partitions", "0")));
        assertTrue(outOfRange.getMessage().contains("at least 1"), outOfRange.getMessage());
        ConfigException badEnum = assertThrows(ConfigException.class,
                () -> BrokerConfig.parse(Map.of("log.message.timestamp.type", "WallClock")));
        assertTrue(badEnum.getMessage().contains("CreateTime"), badEnum.getMessage());
        ConfigException badListener = assertThrows(ConfigException.class,
                () -> BrokerConfig.parse(Map.of("listeners", "SSL://127.0.0.1:9093")));
        assertTrue(badListener.getMessage().contains("PLAINTEXT"), badListener.getMessage());
        ConfigException badPort = assertThrows(ConfigException.class,
                () -> BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://127.0.0.1:99999")));
        assertTrue(badPort.getMessage().contains("listeners"), badPort.getMessage());
    }

    @Test
    void connectionLimitsHaveKafkasDefaults() {
        BrokerConfig config = BrokerConfig.parse(Map.of());
        assertEquals(Integer.MAX_VALUE, config.maxConnections);
        assertEquals(Integer.MAX_VALUE, config.maxConnectionsPerIp);
        assertEquals(Map.of(), config.maxConnectionsPerIpOverrides);
        assertEquals(600_000L, config.connectionsMaxIdleMs);
        assertEquals(-1L, config.queuedMaxRequestBytes, "unbounded");
    }

    @Test
    void connectionLimitsAreParsed() {
        BrokerConfig config = BrokerConfig.parse(Map.of(
                "max.connections", "1000",
                "max.connections.per.ip", "0",
                "max.connections.per.ip.overrides", " 10.0.0.1:5, broker1.example : 20 ,::1:3,[fe80::1]:4,",
                "connections.max.idle.ms", "-7",
                "queued.max.request.bytes", "0"));
        assertEquals(1000, config.maxConnections);
        assertEquals(0, config.maxConnectionsPerIp);
        assertEquals(List.of("10.0.0.1", "broker1.example", "::1", "fe80::1"),
                List.copyOf(config.maxConnectionsPerIpOverrides.keySet()), "in the given order");
        assertEquals(List.of(5, 20, 3, 4), List.copyOf(config.maxConnectionsPerIpOverrides.values()));
        assertEquals(-1L, config.connectionsMaxIdleMs, "negative: never, as in Kafka");
        assertEquals(-1L, config.queuedMaxRequestBytes, "0 or less: unbounded, as in Kafka");
        assertEquals(500L * 1024 * 1024,
                BrokerConfig.parse(Map.of("queued.max.request.bytes", "524288000")).queuedMaxRequestBytes);
    }

    @Test
    void badConnectionLimitsAreRefusedNamingTheProperty() {
        for (Map<String, String> bad : List.of(
                Map.of("max.connections", "-1"),
                Map.of("max.connections.per.ip", "-1"),
                Map.of("max.connections.per.ip", "0"),
                Map.of("max.connections.per.ip.overrides", "10.0.0.1"),
                Map.of("max.connections.per.ip.overrides", ":5"),
                Map.of("max.connections.per.ip.overrides", "10.0.0.1:many"),
                Map.of("max.connections.per.ip.overrides", "10.0.0.1:-2"),
                Map.of("max.connections.per.ip.overrides", "10.0.0.1:2,10.0.0.1:3"),
                Map.of("connections.max.idle.ms", "0"),
                Map.of("queued.max.request.bytes", "lots"))) {
            ConfigException refused = assertThrows(ConfigException.class, () -> BrokerConfig.parse(bad),
                    bad.toString());
            String property = bad.keySet().iterator().next();
            assertTrue(refused.getMessage().contains(property), refused.getMessage());
        }
    }
}
