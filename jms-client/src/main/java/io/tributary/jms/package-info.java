/**
 * Tributary's Jakarta Messaging 3.1 provider: JMS destinations, messages, sessions and consumers mapped onto Kafka
 * topics, records, offsets and consumer groups, built on the official Kafka Java client.
 */
package io.tributary.jms;
