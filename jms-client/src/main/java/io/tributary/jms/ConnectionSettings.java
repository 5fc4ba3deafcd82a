package io.tributary.jms;

import java.util.Map;

import io.tributary.jms.message.ObjectMessageAllowList;

/**
 * What a connection was created with: the cluster, the factory's client id, pass-through Kafka properties, and how
 * received messages are built.
 *
 * @param startAt  where consumers start unless the typed API gives a position (replay by configuration)
 * @param user     the user name given to {@code createConnection(user, password)}, or null
 */
record ConnectionSettings(String bootstrapServers, String clientId, Map<String, String> kafkaProperties,
                          ObjectMessageAllowList objectAllowList, boolean plainRecordsAsText, StartPosition startAt,
                          String user) {

    ConnectionSettings {
        kafkaProperties = Map.copyOf(kafkaProperties);
    }
}
