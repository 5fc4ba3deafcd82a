package io.tributary.broker.cluster;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out producer ids (InitProducerId) unique across the cluster and across restarts. Each broker claims blocks of
 * {@value #BLOCK_SIZE} consecutive ids by a compare-and-set of {@code /latest_producer_id_block}
 * ({@code {"version":1,"broker":N,"block_start":"0","block_end":"999"}}): it reads the last claimed block and its
 * znode version, and writes the following block naming that version; a broker that lost the race reads again. Ids
 * left in a block when the broker stops are never used.
 *
 * <p>One ZooKeeper round trip per {@value #BLOCK_SIZE} ids, Kafka's block size: rare enough not to matter, small
 * enough that restarts waste few ids. Thread-safe ({@link #nextProducerId()} is synchronized; the caller that
 * exhausts a block waits for the next one).
 */
public final class ProducerIdManager {

    private static final Logger log = LoggerFactory.getLogger(ProducerIdManager.class);

    static final int BLOCK_SIZE = 1000;

    private final CuratorFramework zk;
    private final int brokerId;

    // Guarded by this.
    private long next;
    private long last = -1;

    ProducerIdManager(ZkConnection connection, int brokerId) {
        this.zk = connection.curator();
        this.brokerId = brokerId;
    }

    /**
     * The next unused producer id.
     *
     * @throws ClusterException if a new block cannot be claimed
     */
    public synchronized long nextProducerId() {
        if (next > last) {
            ProducerIdBlock block = claimBlock();
            next = block.firstId();
            last = block.lastId();
        }
        return next++;
    }

    private ProducerIdBlock claimBlock() {
        String path = ZkPaths.PRODUCER_ID_BLOCK;
        while (true) {
            try {
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = zk.getData().storingStatIn(stat).forPath(path);
                } catch (KeeperException.NoNodeException e) {
                    data = null;
                }
                long first = 0;
                if (data != null && data.length > 0) {
                    ProducerIdBlock previous = ZkJson.parseProducerIdBlock(path, data);
                    if (previous.lastId() > Long.MAX_VALUE - BLOCK_SIZE) {
                        throw new ClusterException("producer ids are exhausted: the last block in " + path
                                + " ends at " + previous.lastId());
                    }
                    first = previous.lastId() + 1;
                }
                ProducerIdBlock block = new ProducerIdBlock(brokerId, first, first + BLOCK_SIZE - 1);
                byte[] json = ZkJson.producerIdBlock(block);
                if (data == null) {
                    zk.create().forPath(path, json);
                } else {
                    zk.setData().withVersion(stat.getVersion()).forPath(path, json);
                }
                log.info("Broker {} claimed producer ids {} to {}", brokerId, block.firstId(), block.lastId());
                return block;
            } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
                // Another broker claimed a block in between: read its block and try the next one.
            } catch (Exception e) {
                throw ClusterException.wrap("claiming a producer id block at " + path, e);
            }
        }
    }
}
