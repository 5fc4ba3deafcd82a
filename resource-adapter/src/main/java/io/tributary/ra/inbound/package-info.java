/**
 * Inbound delivery to message-driven beans. {@link io.tributary.ra.inbound.TributaryActivationSpec} (named in
 * {@code ra.xml}) carries an MDB's activation properties; {@code ActivationConfig} checks and types them;
 * {@link io.tributary.ra.inbound.InboundActivation}, which the resource adapter starts and stops, wires one
 * activation: the {@code RecordFetcher} Work that owns the Kafka consumer, the {@code DeliveryScheduler} that runs
 * partitions on the container's WorkManager, a {@code PartitionDelivery} per partition, the {@code EndpointInvoker}
 * that calls the bean and the {@code DeadLetters} topic.
 *
 * <p>Only the activation spec and {@code InboundActivation} are public.
 */
package io.tributary.ra.inbound;
