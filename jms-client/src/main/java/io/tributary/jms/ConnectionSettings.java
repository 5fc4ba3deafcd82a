package io.tributary.jms;

import java.time.Clock;
import java.time.Duration;

import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.KafkaClientConfig;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.message.ObjectMessageAllowList;
import io.tributary.jms.message.ObjectMessageLimits;

/**
 * What a connection was created with: the cluster, the factory's client id, the Kafka client configuration, and how
 * received messages are built.
 *
 * @param kafka          the cluster and the pass-through Kafka properties, checked
 * @param objectLimits   what deserializing an {@code ObjectMessage} body may cost
 * @param startAt        where consumers start unless the typed API gives a position (replay by configuration)
 * @param user           the user name given to {@code createConnection(user, password)}, or null
 * @param connectTimeout how long creating a connection waits for the cluster to answer; zero: it does not ask
 * @param clock          the wall clock: JMSTimestamp, JMSExpiration and JMSDeliveryTime are set and compared with it
 * @param transactionalIdPrefix the prefix of the transactional ids of transacted sessions' producers, or null for
 *                       a random one per connection ({@link TransactionalProducers})
 * @param xaLogTopic     the XA log's topic ({@link io.tributary.jms.kafka.XaLog})
 * @param queueMode      how the receivers of a (non-temporary) queue share it: a share group or a consumer group
 * @param subscriptionMode how the consumers of a shared topic subscription share it: its share group or its
 *                       consumer group
 * @param deadLetters    what share-group queue receivers do with a message that keeps failing
 * @param metricsEnabled whether the connection publishes its JMX metrics ({@link ConnectionMetrics})
 */
record ConnectionSettings(KafkaClientConfig kafka, String clientId, ObjectMessageAllowList objectAllowList,
                          ObjectMessageLimits objectLimits, boolean plainRecordsAsText, StartPosition startAt,
                          String user, Duration connectTimeout, Clock clock,
                          String transactionalIdPrefix, String xaLogTopic, QueueMode queueMode,
                          QueueMode subscriptionMode, DeadLetterPolicy deadLetters,
                          boolean metricsEnabled) {

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }
}
