package io.tributary.broker.metrics;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.jmx.JmxReporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics of one broker, published as JMX beans under Apache Kafka's object names and attribute names, so that
 * dashboards and jmx_exporter rules written for Kafka work unchanged.
 *
 * <p>Format. A metric's name in the registry is its whole JMX object name, in Kafka's key order:
 * {@code kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=orders} ({@link #name}). Dropwizard's
 * {@link JmxReporter} gives the attributes Kafka's Yammer metrics have: meters {@code Count}, {@code MeanRate},
 * {@code OneMinuteRate}, {@code FiveMinuteRate}, {@code FifteenMinuteRate}, {@code RateUnit} (per second);
 * histograms {@code Count}, {@code Min}, {@code Max}, {@code Mean}, {@code StdDev}, {@code 50thPercentile} ...
 * {@code 999thPercentile}; timers both, in milliseconds; gauges {@code Value}. Kafka's meters also have
 * {@code EventType}, which these lack. Beans that Kafka publishes through its own Kafka Metrics library (one bean,
 * several named attributes, such as {@code kafka.server:type=group-coordinator-metrics}) are {@link #attributes}.
 * Histograms use a lock-free exponentially decaying reservoir (Kafka's Yammer histograms decay the same way).
 *
 * <p>One broker per JVM, as in Kafka. Brokers that share a JVM (tests) share the platform MBean server: each object
 * name belongs to the first broker that creates it ({@link #OWNERS}) until that broker removes it; a second broker's
 * metric of the same name still counts but is not published. Without this, Dropwizard's reporter would let a
 * broker's removal unregister another broker's bean.
 *
 * <p>Thread-safe. Recording (a meter's {@code mark}, a histogram's {@code update}) takes no lock; creating and
 * removing metrics is for state changes, not for every request.
 */
public final class BrokerMetrics implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BrokerMetrics.class);

    /** Which broker of this JVM publishes each object name. */
    private static final Map<String, BrokerMetrics> OWNERS = new ConcurrentHashMap<>();

    /** The metrics this broker publishes; a JMX reporter follows its additions and removals. */
    private final MetricRegistry published = new MetricRegistry();
    /** Metrics of names another broker of this JVM publishes, and every metric of a detached instance. */
    private final MetricRegistry unpublished = new MetricRegistry();
    /** Beans registered here directly ({@link #attributes}). */
    private final Map<String, ObjectName> attributeBeans = new ConcurrentHashMap<>();
    /** The attributes of every {@link #attributes} bean of this broker, published or not, for {@link #forEach}. */
    private final Map<String, Map<String, Supplier<Double>>> attributeValues = new ConcurrentHashMap<>();
    private final MBeanServer server;
    private final JmxReporter reporter;
    private volatile boolean closed;

    private BrokerMetrics(MBeanServer server) {
        this.server = server;
        if (server == null) {
            reporter = null;
        } else {
            reporter = JmxReporter.forRegistry(published).registerWith(server)
                    .createsObjectNamesWith((type, domain, name) -> objectName(name))
                    .convertRatesTo(TimeUnit.SECONDS).convertDurationsTo(TimeUnit.MILLISECONDS).build();
            reporter.start();
        }
    }

    /** Metrics published on the platform MBean server (a broker). */
    public static BrokerMetrics jmx() {
        return new BrokerMetrics(ManagementFactory.getPlatformMBeanServer());
    }

    /** Metrics that count but are published nowhere (components built alone, in unit tests and tools). */
    public static BrokerMetrics detached() {
        return new BrokerMetrics(null);
    }

    /**
     * A Kafka object name: {@code domain:type=<type>,name=<name>} followed by the tags in the order given, as
     * {@code key, value} pairs. Tag values are Kafka's names (topics, API names), which need no quoting.
     */
    public static String name(String domain, String type, String name, String... tags) {
        if (tags.length % 2 != 0) {
            throw new IllegalArgumentException("tags come as key, value pairs: " + String.join(",", tags));
        }
        StringBuilder builder = new StringBuilder(domain).append(":type=").append(type);
        if (name != null) {
            builder.append(",name=").append(name);
        }
        for (int i = 0; i < tags.length; i += 2) {
            builder.append(',').append(tags[i]).append('=').append(tags[i + 1]);
        }
        return builder.toString();
    }

    public Meter meter(String name) {
        return registryFor(name).meter(name);
    }

    /** A histogram with an exponentially decaying reservoir, as Kafka's. */
    public Histogram histogram(String name) {
        return registryFor(name).histogram(name, () -> new Histogram(
                LockFreeExponentiallyDecayingReservoir.builder().build()));
    }

    /** A timer (rate and duration histogram, published in milliseconds), as Kafka's {@code LogFlushRateAndTimeMs}. */
    public Timer timer(String name) {
        return registryFor(name).timer(name, () -> new Timer(
                LockFreeExponentiallyDecayingReservoir.builder().build()));
    }

    /** A gauge whose {@code Value} is read from {@code value} on every JMX read; replaces one of the same name. */
    public <T> void gauge(String name, Supplier<T> value) {
        MetricRegistry registry = registryFor(name);
        registry.remove(name);
        registry.register(name, (Gauge<T>) value::get);
    }

    /**
     * A bean with several named attributes, as Kafka's Kafka-Metrics beans have (attribute values as doubles).
     * Replaces one of the same name.
     */
    public void attributes(String name, Map<String, Supplier<Double>> attributes) {
        if (closed) {
            return;
        }
        attributeValues.put(name, Map.copyOf(attributes));
        if (server == null || !claim(name)) {
            return;
        }
        ObjectName objectName = objectName(name);
        try {
            if (attributeBeans.remove(name) != null) {
                server.unregisterMBean(objectName);
            }
            server.registerMBean(new AttributeBean(attributes), objectName);
            attributeBeans.put(name, objectName);
        } catch (JMException e) {
            OWNERS.remove(name, this);
            log.warn("Cannot register the JMX bean {}: {}", name, e.toString());
        }
    }

    /** Removes a metric or bean, if it exists. */
    public void remove(String name) {
        attributeValues.remove(name);
        if (OWNERS.get(name) == this) {
            ObjectName bean = attributeBeans.remove(name);
            if (bean != null) {
                try {
                    server.unregisterMBean(bean);
                } catch (JMException e) {
                    log.debug("Unregistering {} failed", name, e);
                }
            } else {
                published.remove(name);
            }
            OWNERS.remove(name, this);
        } else {
            unpublished.remove(name);
        }
    }

    /** What {@link #forEach} hands over: each metric of this broker, and each attribute of its attribute beans. */
    public interface Visitor {
        /** A meter, histogram, timer or gauge, by its whole object name. */
        void metric(String name, Metric metric);

        /** One named attribute of an {@link #attributes} bean. */
        void attribute(String name, String attribute, double value);
    }

    /**
     * Visits every metric of this broker, published on JMX or not (so a broker that shares its JVM with another
     * still shows its own), reading attribute beans' values as it goes. For the scrape endpoint's thread; the
     * registries' maps are concurrent, so a metric added or removed meanwhile is seen or not.
     */
    public void forEach(Visitor visitor) {
        for (MetricRegistry registry : new MetricRegistry[] {published, unpublished}) {
            for (Map.Entry<String, Metric> metric : registry.getMetrics().entrySet()) {
                visitor.metric(metric.getKey(), metric.getValue());
            }
        }
        for (Map.Entry<String, Map<String, Supplier<Double>>> bean : attributeValues.entrySet()) {
            for (Map.Entry<String, Supplier<Double>> attribute : bean.getValue().entrySet()) {
                Double value = attribute.getValue().get();
                if (value != null) {
                    visitor.attribute(bean.getKey(), attribute.getKey(), value);
                }
            }
        }
    }

    /** The names of this broker's metrics, published or not. */
    public List<String> names() {
        List<String> names = new ArrayList<>(published.getNames());
        names.addAll(unpublished.getNames());
        for (String name : attributeValues.keySet()) {
            if (!attributeBeans.containsKey(name)) {
                names.add(name);
            }
        }
        names.addAll(attributeBeans.keySet());
        return names;
    }

    /** Removes every metric and bean of this broker; idempotent. */
    @Override
    public void close() {
        closed = true;
        for (String name : names()) {
            remove(name);
        }
        if (reporter != null) {
            reporter.close();
        }
    }

    private MetricRegistry registryFor(String name) {
        return server != null && !closed && claim(name) ? published : unpublished;
    }

    /** Whether this broker publishes {@code name}: it already does, or nobody in this JVM did. */
    private boolean claim(String name) {
        BrokerMetrics owner = OWNERS.computeIfAbsent(name, key -> this);
        if (owner != this) {
            log.debug("{} is published by another broker in this JVM; this broker's is not", name);
        }
        return owner == this;
    }

    private static ObjectName objectName(String name) {
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("not a JMX object name: " + name, e);
        }
    }
}
