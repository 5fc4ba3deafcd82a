package io.tributary.broker.cluster;

import java.util.List;

/**
 * The paths of Tributary's znodes: Kafka's ZooKeeper layout, relative to the chroot of {@code zookeeper.connect}.
 * Stateless.
 */
final class ZkPaths {

    static final String BROKERS = "/brokers";
    static final String BROKER_IDS = "/brokers/ids";
    static final String TOPICS = "/brokers/topics";
    /**
     * Tributary's: ephemeral {@code /brokers/shutting_down/<id>} ({@code {"version":1,"broker_epoch":Z}}) while a
     * broker in a controlled shutdown waits for the controller to move its leaderships away.
     */
    static final String SHUTTING_DOWN = "/brokers/shutting_down";
    /**
     * Tributary's: ephemeral {@code /brokers/offline_replicas/<id>}
     * ({@code {"version":1,"broker_epoch":Z,"log_dirs":[..],"partitions":{"topic":[0,2]}}}) while a broker has log
     * directories offline; the controller treats it as dead for the partitions listed.
     */
    static final String OFFLINE_REPLICAS = "/brokers/offline_replicas";
    static final String CONTROLLER = "/controller";
    static final String CONTROLLER_EPOCH = "/controller_epoch";
    static final String CONFIG = "/config";
    static final String CONFIG_TOPICS = "/config/topics";
    static final String CONFIG_BROKERS = "/config/brokers";
    /** Group configurations (KIP-848, KIP-932): {@code /config/groups/<groupId>}, laid out as a topic's. */
    static final String CONFIG_GROUPS = "/config/groups";
    /** The entity of {@code /config/brokers} that holds the cluster-wide dynamic defaults, as in Kafka. */
    public static final String DEFAULT_BROKER_ENTITY = "<default>";
    /** SCRAM credentials: {@code /config/users/<url-encoded user>}, laid out as a topic's config, as in Kafka. */
    static final String CONFIG_USERS = "/config/users";
    /** LITERAL ACLs: {@code /kafka-acl/<ResourceType>/<name>}, as in Kafka's ZooKeeper mode. */
    static final String ACLS_LITERAL = "/kafka-acl";
    /** PREFIXED ACLs: {@code /kafka-acl-extended/prefixed/<ResourceType>/<prefix>}, as in Kafka's ZooKeeper mode. */
    static final String ACLS_PREFIXED = "/kafka-acl-extended/prefixed";
    static final String DELETE_TOPICS = "/admin/delete_topics";
    static final String PRODUCER_ID_BLOCK = "/latest_producer_id_block";
    static final String CLUSTER_ID = "/cluster/id";

    /** The persistent parents that exist in every cluster, created at start-up as Kafka does. */
    static final List<String> PERSISTENT_PATHS = List.of(BROKER_IDS, TOPICS, SHUTTING_DOWN, OFFLINE_REPLICAS,
            CONFIG_TOPICS, CONFIG_BROKERS, CONFIG_GROUPS, CONFIG_USERS, DELETE_TOPICS, ACLS_LITERAL, ACLS_PREFIXED);

    private ZkPaths() {
    }

    static String broker(int brokerId) {
        return BROKER_IDS + "/" + brokerId;
    }

    static String shuttingDown(int brokerId) {
        return SHUTTING_DOWN + "/" + brokerId;
    }

    static String offlineReplicas(int brokerId) {
        return OFFLINE_REPLICAS + "/" + brokerId;
    }

    static String topic(String topic) {
        return TOPICS + "/" + topic;
    }

    static String partitions(String topic) {
        return topic(topic) + "/partitions";
    }

    static String partition(String topic, int partition) {
        return partitions(topic) + "/" + partition;
    }

    static String partitionState(String topic, int partition) {
        return partition(topic, partition) + "/state";
    }

    static String topicConfig(String topic) {
        return CONFIG_TOPICS + "/" + topic;
    }

    static String brokerConfig(String entity) {
        return CONFIG_BROKERS + "/" + entity;
    }

    static String groupConfig(String groupId) {
        return CONFIG_GROUPS + "/" + groupId;
    }

    static String deleteTopicRequest(String topic) {
        return DELETE_TOPICS + "/" + topic;
    }

    /** The last segment of a path: the broker id, topic or partition a znode stands for. */
    static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
