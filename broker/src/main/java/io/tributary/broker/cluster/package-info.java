/**
 * ZooKeeper coordination: the broker registry, controller election, topics with their replica assignment, partition
 * leader and ISR state, topic config overrides, producer-id blocks, the broker's metadata cache, the peer failure
 * detector, the controller's decisions (elections, reassignments, leader balance), and the embedded ZooKeeper of the
 * development default.
 *
 * <p>The znode layout (all under the chroot of {@code zookeeper.connect}, JSON as Kafka writes it, see {@link
 * io.tributary.broker.cluster.ZkJson} for every format):
 * <pre>
 * /brokers/ids/&lt;id&gt;                              ephemeral  a live broker's registration; its creation zxid is the
 *                                                         broker epoch
 * /brokers/shutting_down/&lt;id&gt;                    ephemeral  a broker in a controlled shutdown (Tributary's)
 * /brokers/topics/&lt;topic&gt;                        persistent topic id, replica assignment, reassignment markers
 * /brokers/topics/&lt;topic&gt;/partitions/&lt;p&gt;/state  persistent leader, leader epoch, ISR (with members' broker
 *                                                         epochs), controller epoch; versioned
 * /controller                                  ephemeral  the elected controller
 * /controller_epoch                            persistent incremented by every newly elected controller
 * /config/topics/&lt;topic&gt;                         persistent topic config overrides
 * /admin/delete_topics/&lt;topic&gt;                   persistent a deletion request, carried out by the controller
 * /latest_producer_id_block                    persistent the last block of producer ids handed to a broker
 * </pre>
 *
 * <p>{@link io.tributary.broker.cluster.ClusterManager} is what the broker starts and stops; request handlers read
 * {@link io.tributary.broker.cluster.MetadataCache} and call {@link io.tributary.broker.cluster.TopicAdmin} and
 * {@link io.tributary.broker.cluster.ProducerIdManager}; the replica manager listens to the metadata cache and records
 * ISR changes through {@link io.tributary.broker.cluster.PartitionStateStore}.
 */
package io.tributary.broker.cluster;
