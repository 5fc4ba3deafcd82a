/**
 * Tributary's Jakarta Connectors 2.1 resource adapter: inbound delivery of Tributary messages to MessageDriven beans
 * through the container's WorkManager, and an outbound, pooled JMS connection factory.
 */
package io.tributary.ra;
