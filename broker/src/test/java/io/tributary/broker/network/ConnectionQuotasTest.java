package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

import io.tributary.broker.BrokerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ConnectionQuotasTest {

    private static final InetAddress ONE = address("10.0.0.1");
    private static final InetAddress TWO = address("10.0.0.2");
    private static final InetAddress THREE = address("10.0.0.3");

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static ConnectionQuotas quotas(Map<String, String> properties) {
        return new ConnectionQuotas(BrokerConfig.parse(properties));
    }

    private static void assertRefused(String limit, String refusal) {
        assertTrue(refusal != null && refusal.startsWith(limit + " "), "refused for " + limit + ": " + refusal);
    }

    @Test
    void byDefaultThereIsNoLimit() {
        ConnectionQuotas quotas = quotas(Map.of());
        for (int i = 0; i < 10_000; i++) {
            assertNull(quotas.tryAcquire(ONE));
        }
    }

    @Test
    void anAddressAtItsLimitIsRefusedUntilOneOfItsConnectionsCloses() {
        ConnectionQuotas quotas = quotas(Map.of(BrokerConfig.MAX_CONNECTIONS_PER_IP, "2"));
        assertNull(quotas.tryAcquire(ONE));
        assertNull(quotas.tryAcquire(ONE));
        assertRefused(BrokerConfig.MAX_CONNECTIONS_PER_IP, quotas.tryAcquire(ONE));
        assertNull(quotas.tryAcquire(TWO), "another address has its own count");

        quotas.release(ONE);
        assertNull(quotas.tryAcquire(ONE));
    }

    @Test
    void anOverrideGivesItsHostItsOwnLimitEvenZero() {
        ConnectionQuotas quotas = quotas(Map.of(BrokerConfig.MAX_CONNECTIONS_PER_IP, "1",
                BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, "10.0.0.2:3, 10.0.0.3:0"));
        assertNull(quotas.tryAcquire(ONE));
        assertRefused(BrokerConfig.MAX_CONNECTIONS_PER_IP, quotas.tryAcquire(ONE));
        for (int i = 0; i < 3; i++) {
            assertNull(quotas.tryAcquire(TWO));
        }
        assertRefused(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, quotas.tryAcquire(TWO));
        assertRefused(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, quotas.tryAcquire(THREE));
    }

    @Test
    void overridesNameHostsTooResolvedOnce() {
        ConnectionQuotas quotas = quotas(Map.of(BrokerConfig.MAX_CONNECTIONS_PER_IP, "0",
                BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, "localhost:1"));
        InetAddress localhost = address("localhost");
        assertNull(quotas.tryAcquire(localhost));
        assertRefused(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, quotas.tryAcquire(localhost));
        assertRefused(BrokerConfig.MAX_CONNECTIONS_PER_IP, quotas.tryAcquire(ONE));
    }

    @Test
    void theBrokerWideLimitCountsEveryAddress() {
        ConnectionQuotas quotas = quotas(Map.of(BrokerConfig.MAX_CONNECTIONS, "2"));
        assertNull(quotas.tryAcquire(ONE));
        assertNull(quotas.tryAcquire(TWO));
        assertRefused(BrokerConfig.MAX_CONNECTIONS, quotas.tryAcquire(THREE));
        quotas.release(ONE);
        assertNull(quotas.tryAcquire(THREE));
    }

    @Test
    void anOverrideNamingAHostThatDoesNotResolveIsRefusedNamingIt() {
        ConfigException refused = assertThrows(ConfigException.class, () -> quotas(Map.of(
                BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, "no-such-host.invalid:5")));
        assertTrue(refused.getMessage().contains(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES), refused.getMessage());
        assertTrue(refused.getMessage().contains("no-such-host.invalid"), refused.getMessage());
    }
}
