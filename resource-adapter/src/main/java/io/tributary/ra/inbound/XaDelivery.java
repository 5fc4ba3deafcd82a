package io.tributary.ra.inbound;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.resource.ResourceException;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;

import io.tributary.jms.DeliveryXAResource;
import io.tributary.jms.TributaryConnection;
import io.tributary.jms.TributaryConnectionFactory;

/**
 * XA for a transacted activation ({@code isDeliveryTransacted} true): each endpoint is created with an
 * XAResource of its own ({@link DeliveryXAResource}), in which the delivered record's offset is committed in the
 * container's transaction instead of by the fetcher after it. The resources belong to a provider connection of the
 * activation's cluster, whose XA resource manager prepares, commits and recovers the branches.
 *
 * <p>The fetcher publishes its consumer's group metadata after each poll ({@link #groupMetadata(ConsumerGroupMetadata)});
 * delivery threads read it for the offsets they put in a branch (KIP-447: the group coordinator refuses them once
 * this member lost its partitions). Threads: any; {@link #close()} idempotent.
 */
final class XaDelivery implements AutoCloseable {

    private final Connection connection;
    /** Written by the fetcher thread after each poll, read by delivery threads. */
    private volatile ConsumerGroupMetadata groupMetadata;

    private XaDelivery(Connection connection) {
        this.connection = connection;
    }

    /** A provider connection for the activation's cluster; it does not wait for the cluster. */
    static XaDelivery open(ActivationConfig config) throws ResourceException {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(config.bootstrapServers());
        config.kafkaPassThrough().forEach(factory::setKafkaProperty);
        factory.setConnectTimeout(0);
        try {
            return new XaDelivery(factory.createConnection());
        } catch (JMSException e) {
            throw new ResourceException("The XA connection to " + config.bootstrapServers() + " cannot be made: "
                    + e.getMessage(), e);
        }
    }

    DeliveryXAResource newResource() throws JMSException {
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
