/**
 * The outbound, pooled JMS connection factory. {@link io.tributary.ra.outbound.TributaryManagedConnectionFactory}
 * (the connection definition in {@code ra.xml}) makes the {@code TributaryManagedConnection}s the container pools,
 * each holding one physical JMS connection of the provider, and the
 * {@link io.tributary.ra.outbound.TributaryConnectionFactoryHandle} applications look up; applications hold handles
 * ({@link io.tributary.ra.outbound.TributaryConnectionHandle}, sessions, producers, consumers and
 * {@code JMSContext}s) that enforce the Jakarta EE container restrictions and end with the managed connection.
 *
 * <p>Public are the classes {@code ra.xml} names; the handles' other classes are package-private.
 */
package io.tributary.ra.outbound;
