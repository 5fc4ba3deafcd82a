/**
 * Tributary's Jakarta Messaging messages and their mapping onto Kafka records.
 *
 * <p>{@link io.tributary.jms.message.TributaryMessage} and its five body types implement the message interfaces with
 * the specification's conversion tables and read-only rules; {@link io.tributary.jms.message.MessageCodec} turns a
 * message into a {@code ProducerRecord} and a {@code ConsumerRecord} back into a message, in a record layout that
 * non-JMS Kafka clients can read and write; {@link io.tributary.jms.message.ObjectMessageAllowList} decides which
 * classes an {@code ObjectMessage} may deserialize.
 *
 * <p>Messages are not thread-safe: like every Jakarta Messaging message, one is used by one thread at a time.
 */
package io.tributary.jms.message;
