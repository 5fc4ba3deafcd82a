package io.tributary.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Which quota applies to a client: Kafka's documented precedence of the eight entities. */
class ClientQuotasTest {

    private static final String D = QuotaEntity.DEFAULT;

    private final Map<QuotaEntity, Map<String, Double>> all = new HashMap<>();

    private void quota(String user, String clientId, double value) {
        all.put(new QuotaEntity(user, clientId), Map.of(QuotaType.PRODUCE.key(), value));
    }

    private ClientQuotas.Applied resolve() {
        return new ClientQuotas(all).resolve(QuotaType.PRODUCE, "alice", "app");
    }

    @Test
    void eachEntityWinsOverEveryOneBelowIt() {
        quota(null, D, 8);
        assertEquals(new ClientQuotas.Applied(8, "", "app"), resolve());
        quota(null, "app", 7);
        assertEquals(new ClientQuotas.Applied(7, "", "app"), resolve());
        quota(D, null, 6);
        assertEquals(new ClientQuotas.Applied(6, "alice", ""), resolve());
        quota(D, D, 5);
        assertEquals(new ClientQuotas.Applied(5, "alice", "app"), resolve());
        quota(D, "app", 4);
        assertEquals(new ClientQuotas.Applied(4, "alice", "app"), resolve());
        quota("alice", null, 3);
        assertEquals(new ClientQuotas.Applied(3, "alice", ""), resolve());
        quota("alice", D, 2);
        assertEquals(new ClientQuotas.Applied(2, "alice", "app"), resolve());
        quota("alice", "app", 1);
        assertEquals(new ClientQuotas.Applied(1, "alice", "app"), resolve());
    }

    @Test
    void quotasOfOtherClientsOrOtherKeysDoNotApply() {
        quota("bob", null, 1);
        quota(null, "other-app", 2);
        all.put(new QuotaEntity("alice", null), Map.of(QuotaType.FETCH.key(), 3.0));
        assertNull(resolve());
    }
}
