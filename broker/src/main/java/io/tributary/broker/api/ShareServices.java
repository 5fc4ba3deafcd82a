package io.tributary.broker.api;

import io.tributary.broker.replication.InterBrokerChannel;
import io.tributary.broker.share.ShareCoordinator;
import io.tributary.broker.share.ShareGroupSettings;
import io.tributary.broker.share.SharePartitionManager;
import io.tributary.broker.share.ShareStatePersister;

/**
 * The share-group parts (KIP-932) the request handlers call, as the broker built them.
 *
 * @param partitions  the share-partitions this broker leads (ShareFetch, ShareAcknowledge)
 * @param settings    each group's effective share settings
 * @param coordinator this broker's share coordinator (the share coordinator's APIs)
 * @param persister   reaches every share coordinator (the share-group offset admin APIs)
 * @param channel     carries the offset admin APIs' ListOffsets to other brokers; owned by the broker
 */
public record ShareServices(SharePartitionManager partitions, ShareGroupSettings.Source settings,
                            ShareCoordinator coordinator, ShareStatePersister persister, InterBrokerChannel channel) {
}
