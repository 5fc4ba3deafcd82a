package io.tributary.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/** How listener security is read from Kafka's property names, without sockets or key stores. */
class SecurityConfigTest {

    private static SecurityConfig parse(List<String> listeners, String... pairs) {
        Map<String, Object> properties = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            properties.put(pairs[i], pairs[i + 1]);
        }
        return SecurityConfig.parse(properties, listeners, listeners);
    }

    @Test
    void kafkasDefaultMapGivesEachProtocolNameItsProtocol() {
        SecurityConfig config = parse(List.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
                "ssl.keystore.location", "/k.p12");
        assertEquals(SecurityProtocol.PLAINTEXT, config.listener("PLAINTEXT").protocol());
        assertEquals(SecurityProtocol.SSL, config.listener("SSL").protocol());
        assertEquals(SecurityProtocol.SASL_PLAINTEXT, config.listener("SASL_PLAINTEXT").protocol());
        assertEquals(SecurityProtocol.SASL_SSL, config.listener("SASL_SSL").protocol());
        assertEquals("PLAINTEXT", config.interBrokerListenerName());
    }

    @Test
    void aListenerPrefixedSettingWinsOverTheBrokerWideOne() {
        SecurityConfig config = parse(List.of("PLAINTEXT", "EXTERNAL", "INTERNAL"),
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,EXTERNAL:SASL_SSL,INTERNAL:SSL",
                "ssl.keystore.location", "/broker.p12",
                "ssl.keystore.password", "wide",
                "listener.name.external.ssl.keystore.location", "/external.p12",
                "listener.name.external.ssl.client.auth", "required",
                "sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256",
                "listener.name.external.sasl.enabled.mechanisms", "scram-sha-512",
                "sasl.jaas.config", "wide-jaas",
                "listener.name.external.scram-sha-512.sasl.jaas.config", "own-jaas");
        ListenerSecurity external = config.listener("EXTERNAL");
        assertEquals("/external.p12", external.sslConfigs().get("ssl.keystore.location"));
        assertEquals(new Password("wide"), external.sslConfigs().get("ssl.keystore.password"));
        assertEquals("required", external.sslConfigs().get("ssl.client.auth"));
        assertEquals(List.of("SCRAM-SHA-512"), external.saslMechanisms());
        assertEquals(new Password("own-jaas"), external.jaasConfigs().get("SCRAM-SHA-512"));
        ListenerSecurity internal = config.listener("INTERNAL");
        assertEquals("/broker.p12", internal.sslConfigs().get("ssl.keystore.location"));
        assertEquals("none", internal.sslConfigs().get("ssl.client.auth"));
        assertTrue(internal.saslMechanisms().isEmpty(), "SSL has no SASL");
        assertTrue(config.listener("PLAINTEXT").sslConfigs().isEmpty(), "PLAINTEXT has no TLS");
    }

    @Test
    void prefixedNamesAreKnownSecurityProperties() {
        assertTrue(SecurityConfig.isSecurityProperty("listener.name.sasl_ssl.ssl.keystore.location"));
        assertTrue(SecurityConfig.isSecurityProperty("listener.name.sasl_ssl.plain.sasl.jaas.config"));
        assertTrue(SecurityConfig.isSecurityProperty("listener.name.internal.sasl.enabled.mechanisms"));
        assertTrue(SecurityConfig.isSecurityProperty("ssl.truststore.type"));
        assertFalse(SecurityConfig.isSecurityProperty("listener.name.sasl_ssl.log.dirs"));
        assertFalse(SecurityConfig.isSecurityProperty("listener.name.x.a.b.sasl.jaas.config"));
    }

    @Test
    void badSettingsAreRefusedNamingTheProperty() {
        assertProperty("listener.security.protocol.map", () -> parse(List.of("PLAINTEXT", "SECURE"),
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SECURE:TLS"));
        assertProperty("listener.security.protocol.map", () -> parse(List.of("PLAINTEXT", "OTHER")));
        assertProperty("inter.broker.listener.name", () -> parse(List.of("PLAINTEXT"),
                "inter.broker.listener.name", "PLAINTEXT", "security.inter.broker.protocol", "PLAINTEXT"));
        assertProperty("inter.broker.listener.name", () -> parse(List.of("PLAINTEXT"),
                "inter.broker.listener.name", "INTERNAL"));
        assertProperty("listener.name.ssl.ssl.client.auth", () -> parse(List.of("PLAINTEXT", "SSL"),
                "listener.name.ssl.ssl.client.auth", "sometimes"));
        assertProperty("sasl.mechanism.inter.broker.protocol", () -> parse(List.of("SASL_SSL"),
                "security.inter.broker.protocol", "SASL_SSL", "sasl.enabled.mechanisms", "PLAIN"));
    }

    private static void assertProperty(String property, Runnable parse) {
        ConfigException refused = assertThrows(ConfigException.class, parse::run);
        assertTrue(refused.getMessage().contains(property), refused.getMessage());
    }

    @Test
    void unsetTlsSettingsStayUnsetAndTakeKafkasDefaults() {
        ListenerSecurity ssl = parse(List.of("PLAINTEXT", "SSL")).listener("SSL");
        assertNull(ssl.sslConfigs().get("ssl.truststore.location"));
        assertEquals("TLSv1.3", ssl.sslConfigs().get("ssl.protocol"));
        assertEquals("JKS", ssl.sslConfigs().get("ssl.keystore.type"));
    }
}
