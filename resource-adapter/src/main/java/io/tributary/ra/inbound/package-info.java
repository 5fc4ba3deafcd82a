/**
 * Inbound delivery to message-driven beans. {@link io.tributary.ra.inbound.TributaryActivationSpec} (named in
 * {@code ra.xml}) carries an MDB's activation properties; {@code ActivationConfig} checks and types them;
 * {@link io.tributary.ra.inbound.InboundActivation}, which the resource adapter starts and stops, wires one
 * activation, in one of two ways: for a queue in queue mode {@code share}, {@code ShareDelivery}'s
 * {@code maxSession} {@code ShareMember} Works, each a member of the queue's share group with its own share consumer;
 * otherwise the {@code RecordFetcher} Work that owns the Kafka consumer of the group, the {@code DeliveryScheduler}
 * that runs partitions on the container's WorkManager, a {@code PartitionDelivery} per partition and, for transacted
 * delivery, {@code XaDelivery}. Both use the {@code EndpointInvoker} that calls the bean and the {@code DeadLetters}
 * topic.
 *
 * <p>Only the activation spec, {@code InboundActivation} and {@code XaDelivery} (for the adapter's recovery scan) are
 * public.
 */
package io.tributary.ra.inbound;
