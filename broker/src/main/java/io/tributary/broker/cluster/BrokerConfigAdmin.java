package io.tributary.broker.cluster;

import java.util.Map;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dynamic broker configuration in ZooKeeper: {@code /config/brokers/<default>} for the whole cluster and
 * {@code /config/brokers/<id>} for one broker, each {@code {"version":1,"config":{...}}} as in Kafka. Every broker's
 * metadata cache watches them, so a change takes effect on every broker without a restart.
 *
 * <p>Changes are read-change-write loops with a conditional write, so concurrent changes from two brokers never
 * lose one another. What may be changed and how values are checked is the caller's validator's business.
 */
public final class BrokerConfigAdmin {

    /** The entity of the cluster-wide dynamic defaults (IncrementalAlterConfigs' broker resource name ""). */
    public static final String DEFAULT_ENTITY = ZkPaths.DEFAULT_BROKER_ENTITY;

    private static final Logger log = LoggerFactory.getLogger(BrokerConfigAdmin.class);

    private final TopicStore store;

    BrokerConfigAdmin(TopicStore store) {
        this.store = store;
    }

    /**
     * Applies {@code change} to the entity's stored overrides, validates the result with {@code validate} (which
     * throws an ApiException to refuse it) and writes it unless {@code validateOnly}.
     *
     * @param entity {@link ZkPaths#DEFAULT_BROKER_ENTITY} or a broker id
     * @return the overrides after the change
     */
    public Map<String, String> alter(String entity, UnaryOperator<Map<String, String>> change,
                                     UnaryOperator<Map<String, String>> validate, boolean validateOnly) {
        Map<String, String> after = store.alterConfigAt(ZkPaths.brokerConfig(entity),
                current -> validate.apply(change.apply(current)), validateOnly,
                "the dynamic config of broker entity " + entity);
        if (!validateOnly) {
            log.info("Dynamic broker config of {} is now {}", entity, after);
        }
        return after;
    }
}
