package io.tributary.broker.api;

import java.util.Optional;

import org.apache.kafka.common.Uuid;

/**
 * Topic names and ids as the cluster metadata knows them: Produce v13+, Fetch v13+ and Metadata v10+ name topics by
 * id. Implemented over the broker's metadata cache; read on request-handler threads.
 */
public interface TopicIds {

    Optional<Uuid> topicId(String topic);

    Optional<String> topicName(Uuid topicId);
}
