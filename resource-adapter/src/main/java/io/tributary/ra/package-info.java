/**
 * Tributary's Jakarta Connectors 2.1 resource adapter: inbound delivery of Tributary messages to MessageDriven beans
 * through the container's WorkManager, and an outbound, pooled JMS connection factory.
 *
 * <p>Layers, as in Artemis's {@code ra} and {@code ra.inflow}:
 * <ul>
 *   <li>this package: what the server configures on the adapter as a whole and both sides use: the resource
 *       adapter JavaBean ({@link io.tributary.ra.TributaryResourceAdapter}, {@code resourceadapter-class} in
 *       {@code ra.xml}), its settings ({@link io.tributary.ra.TributaryAdapterSettings}) and the administered
 *       destinations ({@link io.tributary.ra.QueueAdminObject}, {@link io.tributary.ra.TopicAdminObject} and their base
 *       {@link io.tributary.ra.DestinationAdminObject});</li>
 *   <li>{@link io.tributary.ra.inbound}: message-driven bean delivery, from the activation spec to the endpoint;</li>
 *   <li>{@link io.tributary.ra.outbound}: the pooled connection factory, its managed connections and the handles
 *       applications hold.</li>
 * </ul>
 * Public are the classes a deployment descriptor names and what another package needs (the adapter's settings, the
 * inbound entry point {@link io.tributary.ra.inbound.InboundActivation}); the rest of each package is
 * package-private.
 */
package io.tributary.ra;
