/**
 * The Kafka logic that the JMS provider ({@code io.tributary.jms}) and the resource adapter ({@code io.tributary.ra})
 * share, so that a JMS client and a message-driven bean of the same queue or subscription agree on it: the Kafka
 * client configuration ({@link io.tributary.jms.kafka.KafkaClientConfig}) and its one-string text form
 * ({@link io.tributary.jms.kafka.KafkaPropertiesText}), consumer groups
 * ({@link io.tributary.jms.kafka.Subscription}, {@link io.tributary.jms.kafka.SubscriptionDefinition}), replay
 * ({@link io.tributary.jms.kafka.ReplaySeeker}), whether a record is delivered
 * ({@link io.tributary.jms.kafka.DeliveryDecision}) and subscription administration
 * ({@link io.tributary.jms.kafka.SubscriptionAdmin}).
 *
 * <p>Classes here decide; they do no JMS API work and keep no consumer state: they take Kafka clients, records and
 * a clock from the caller. They use the provider's value types ({@link io.tributary.jms.StartPosition}, the
 * {@code message} and {@code selector} packages), which is why the package lives in the provider's jar. Tested with
 * kafka-clients' {@code MockConsumer}, records made by the message codec and a manual clock, and against a broker.
 */
package io.tributary.jms.kafka;
