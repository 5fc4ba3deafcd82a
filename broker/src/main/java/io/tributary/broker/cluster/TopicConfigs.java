package io.tributary.broker.cluster;

import java.util.Optional;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.storage.LogConfig;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The effective configuration of topics in a metadata snapshot: the broker's static {@code log.*} defaults, the
 * dynamic broker configuration of {@code /config/brokers} on top, and each topic's overrides on top of that. Used by
 * the replicas (log settings) and by the controller ({@code unclean.leader.election.enable}). Stateless.
 */
public final class TopicConfigs {

    private static final Logger log = LoggerFactory.getLogger(TopicConfigs.class);

    private TopicConfigs() {
    }

    /**
     * The broker's topic defaults in this snapshot. A stored dynamic value that does not parse is ignored with an
     * error line (it was validated when written, so only a hand-edited znode gets there).
     */
    public static LogConfig brokerDefaults(BrokerConfig config, MetadataSnapshot snapshot) {
        try {
            return config.withDynamic(snapshot.dynamicBrokerConfig(config.brokerId)).defaultLogConfig();
        } catch (ConfigException e) {
            log.error("Ignoring the dynamic broker configuration: {}", e.getMessage());
            return config.defaultLogConfig();
        }
    }

    /** The effective configuration of a topic: broker defaults with the topic's overrides. */
    public static LogConfig topicConfig(LogConfig brokerDefaults, Optional<TopicMetadata> topic) {
        return topic.map(t -> brokerDefaults.withOverrides(t.configOverrides())).orElse(brokerDefaults);
    }
}
