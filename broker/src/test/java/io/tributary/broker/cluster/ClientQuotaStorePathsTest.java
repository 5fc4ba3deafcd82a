package io.tributary.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.tributary.broker.quota.QuotaEntity;
import org.junit.jupiter.api.Test;

/** The quota znodes of Kafka's ZooKeeper layout, and the parents that are no entity. */
class ClientQuotaStorePathsTest {

    @Test
    void everyEntityHasKafkasZnodeAndIsReadBackFromIt() {
        for (QuotaEntity entity : new QuotaEntity[] {QuotaEntity.user("alice"), QuotaEntity.user("<default>"),
                QuotaEntity.client("app-1"), QuotaEntity.client("<default>"), new QuotaEntity("alice", "app-1"),
                new QuotaEntity("<default>", "<default>"), new QuotaEntity("User%3Aalice", "%3Cdefault%3E")}) {
            assertEquals(entity, ClientQuotaStore.entityOf(ClientQuotaStore.pathOf(entity)), entity.toString());
        }
        assertEquals("/config/users/alice/clients/app-1", ClientQuotaStore.pathOf(new QuotaEntity("alice", "app-1")));
        assertEquals("/config/clients/<default>", ClientQuotaStore.pathOf(QuotaEntity.client("<default>")));
    }

    @Test
    void parentsAreNoEntity() {
        assertNull(ClientQuotaStore.entityOf("/config/users"));
        assertNull(ClientQuotaStore.entityOf("/config/clients"));
        assertNull(ClientQuotaStore.entityOf("/config/users/alice/clients"));
    }
}
