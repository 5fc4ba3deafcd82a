package io.tributary.broker.cluster;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static io.tributary.broker.cluster.ClusterTestSupport.config;
import static io.tributary.broker.cluster.ClusterTestSupport.data;
import static io.tributary.broker.cluster.ClusterTestSupport.startBroker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProducerIdManagerTest extends ZooKeeperTestBase {

    @Test
    void idsAreUniqueAcrossBrokersClaimingBlocksConcurrently() throws Exception {
        Set<Long> ids = ConcurrentHashMap.newKeySet();
        try (ClusterManager one = startBroker(config(1, connect, dir));
             ClusterManager two = startBroker(config(2, connect, dir))) {
            CountDownLatch done = new CountDownLatch(2);
            for (ClusterManager broker : new ClusterManager[] {one, two}) {
                new Thread(() -> {
                    try {
                        for (int i = 0; i < 2_500; i++) {
                            assertTrue(ids.add(broker.producerIdManager().nextProducerId()), "duplicate id");
                        }
                    } finally {
                        done.countDown();
                    }
                }, "producer-ids-" + broker.brokerId()).start();
            }
            assertTrue(done.await(20, TimeUnit.SECONDS));
        }
        assertEquals(5_000, ids.size());
    }

    @Test
    void restartedBrokerContinuesAfterTheLastClaimedBlock() throws Exception {
        Set<Long> ids = new HashSet<>();
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            assertEquals(0, broker.producerIdManager().nextProducerId());
            ids.add(0L);
            assertEquals("{\"version\":1,\"broker\":1,\"block_start\":\"0\",\"block_end\":\"999\"}",
                    data(inspector, chroot + "/latest_producer_id_block"));
        }
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            long id = broker.producerIdManager().nextProducerId();
            assertEquals(ProducerIdManager.BLOCK_SIZE, id, "the unused rest of the first block is skipped");
            assertTrue(ids.add(id));
        }
    }
}
