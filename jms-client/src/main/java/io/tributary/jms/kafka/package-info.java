/**
 * The Kafka logic that the JMS provider ({@code io.tributary.jms}) and the resource adapter ({@code io.tributary.ra})
 * share, so that a JMS client and a message-driven bean of the same queue or subscription agree on it: the Kafka
 * client configuration ({@link io.tributary.jms.kafka.KafkaClientConfig}).
 *
 * <p>Classes here decide and do no JMS API work: they take Kafka clients, records and clocks, and are tested with
 * kafka-clients' {@code MockConsumer} and {@code MockProducer} as well as against a broker.
 */
package io.tributary.jms.kafka;
