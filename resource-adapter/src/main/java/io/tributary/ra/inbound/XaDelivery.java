package io.tributary.ra.inbound;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.resource.ResourceException;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;

import io.tributary.jms.DeliveryXAResource;
import io.tributary.jms.TributaryConnection;
import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.ra.TributaryAdapterSettings;

/**
 * XA for a transacted activation ({@code isDeliveryTransacted} true): each endpoint is created with an
 * XAResource of its own ({@link DeliveryXAResource}), in which the delivered record's offset is committed in the
 * container's transaction instead of by the fetcher after it. The resources belong to a provider connection of the
 * activation's cluster, whose XA resource manager prepares, commits and recovers the branches.
 *
 * <p>The fetcher publishes its consumer's group metadata after each poll ({@link #groupMetadata(ConsumerGroupMetadata)});
 * delivery threads read it for the offsets they put in a branch (KIP-447: the group coordinator refuses them once
 * this member lost its partitions). The adapter also opens one per cluster for the transaction manager's recovery
 * scan ({@link #forRecovery}). Threads: any; {@link #close()} idempotent.
 */
public final class XaDelivery implements AutoCloseable {

    private final Connection connection;
    private final String bootstrapServers;
    /** Written by the fetcher thread after each poll, read by delivery threads; null without a group. */
    private volatile ConsumerGroupMetadata groupMetadata;

    private XaDelivery(Connection connection, String bootstrapServers) {
        this.connection = connection;
        this.bootstrapServers = bootstrapServers;
    }

    /** A provider connection for the activation's cluster; it does not wait for the cluster. */
    static XaDelivery open(ActivationConfig config) throws ResourceException {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(config.bootstrapServers());
        config.kafkaPassThrough().forEach(factory::setKafkaProperty);
        factory.setConnectTimeout(0);
        try {
            return new XaDelivery(factory.createConnection(), config.bootstrapServers());
        } catch (JMSException e) {
            throw new ResourceException("The XA connection to " + config.bootstrapServers() + " cannot be made: "
                    + e.getMessage(), e);
        }
    }

    /**
     * For the transaction manager's recovery scan ({@code ResourceAdapter.getXAResources}): a connection to the
     * cluster of {@code spec}; its resources list every in-doubt branch of the cluster's XA log.
     *
     * @throws ResourceException if the spec is invalid or the connection cannot be made
     */
    public static XaDelivery forRecovery(TributaryActivationSpec spec, TributaryAdapterSettings adapter)
            throws ResourceException {
        return open(ActivationSpecResolver.resolve(spec, adapter, InboundActivation::lookup));
    }

    /** The cluster this connection goes to. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    public DeliveryXAResource newResource() throws JMSException {
        return ((TributaryConnection) connection).createDeliveryXAResource();
    }

    void groupMetadata(ConsumerGroupMetadata metadata) {
        this.groupMetadata = metadata;
    }

    ConsumerGroupMetadata groupMetadata() {
        return groupMetadata;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (JMSException e) {
            // Nothing held depends on it: prepared branches stay in the XA log for recovery.
        }
    }
}
