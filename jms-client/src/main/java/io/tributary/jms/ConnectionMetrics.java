package io.tributary.jms;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.jms.Destination;
import jakarta.jms.JMSException;

import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;

/**
 * The metrics of one connection, published through JMX the way the Kafka clients publish theirs (a
 * {@link Metrics} registry with a {@link JmxReporter}), under the prefix {@value #JMX_PREFIX}: one bean per
 * destination the connection sends to or receives from,
 * <pre>
 * io.tributary.jms:type=destination-metrics,connection=&lt;connection&gt;,destination=queue.orders
 * </pre>
 * with the attributes of {@link DestinationMetrics}. {@code connection} is the connection's client id when it holds
 * one (claimed, so unique across the cluster), else the {@code client.id} prefix of its Kafka clients
 * ({@code tributary-jms-<8 hex digits>}), which also names their {@code kafka.producer:} and {@code kafka.consumer:}
 * beans. The beans go away when the connection closes.
 *
 * <p>A connection of a factory with {@code metricsEnabled=false} gets {@link #DISABLED}, whose destinations record
 * nothing and register no bean.
 *
 * <p>Threads: any. {@link #destination} is a lookup in a concurrent map after the first call per destination, so a
 * send or receive allocates nothing for its metrics.
 */
final class ConnectionMetrics implements AutoCloseable {

    static final String JMX_PREFIX = "io.tributary.jms";

    /** Records nothing, registers nothing. */
    static final ConnectionMetrics DISABLED = new ConnectionMetrics(null, null);

    private final Metrics metrics;
    private final String connection;
    /** By normalized destination, whose equality is its kind and name. */
    private final Map<Destination, DestinationMetrics> destinations = new ConcurrentHashMap<>();

    private ConnectionMetrics(Metrics metrics, String connection) {
        this.metrics = metrics;
        this.connection = connection;
    }

    /** Metrics of the connection named {@code connection}, registered in the platform MBean server. */
    static ConnectionMetrics open(String connection) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("connection", connection);
        // Kafka's defaults: rates over two 30 s samples, as the clients' own *-rate attributes.
        MetricConfig config = new MetricConfig().tags(tags);
        Metrics metrics = new Metrics(config, List.of(new JmxReporter()), Time.SYSTEM,
                new KafkaMetricsContext(JMX_PREFIX));
        return new ConnectionMetrics(metrics, connection);
    }

    /** The metrics of {@code destination} (normalized, see {@link Destinations#normalize}), created on first use. */
    DestinationMetrics destination(Destination destination) throws JMSException {
        if (metrics == null) {
            return DestinationMetrics.NONE;
        }
        DestinationMetrics found = destinations.get(destination);
        if (found != null) {
            return found;
        }
        String name = (Destinations.isQueue(destination) ? "queue." : "topic.") + Destinations.topicName(destination);
        return destinations.computeIfAbsent(destination,
                key -> DestinationMetrics.register(metrics, connection, name));
    }

    /** Removes the beans. Idempotent. */
    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
    }
}
