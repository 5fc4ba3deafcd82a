package io.tributary.broker.quota;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.tributary.broker.metrics.BrokerMetrics;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.metrics.Quota;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.Sanitizer;

/**
 * Measures one byte-rate quota ({@link QuotaType#PRODUCE} or {@link QuotaType#FETCH}) per client and says how long a
 * client over it is throttled, as Kafka's {@code ClientQuotaManager} does, with kafka-clients' metrics: one
 * {@link Sensor} per quota entity in effect (tags {@code user}, {@code client-id}, see {@link ClientQuotas}) holding a
 * {@link Rate} over {@code quota.window.num} windows of {@code quota.window.size.seconds} with the entity's
 * {@link Quota#upperBound}; a recording that takes the rate over the bound raises a {@link QuotaViolationException}.
 *
 * <p>Throttle time: how long the client must stay away for the windowed rate to come back down to the bound,
 * {@code (rate - bound) / bound * window span}, at most the whole span ({@link QuotaConfig#maxThrottleTimeMs()}).
 * Clients without a quota are not measured.
 *
 * <p>Metrics: beans {@code kafka.server:type=Produce|Fetch,user=<user>,client-id=<client-id>} with Kafka's
 * attributes {@code byte-rate} and {@code throttle-time} (an empty tag left out) (the average throttle time of the windows). Sensors of a
 * client that stopped sending expire after an hour, as Kafka's, and their beans go with them.
 *
 * <p>Thread-safe: request-handler threads and response completions record concurrently; Kafka's sensors lock
 * themselves. The quotas are read through {@code quotas} on every recording, so a change reaches the next request.
 */
public final class ClientQuotaManager implements AutoCloseable {

    /** Kafka's inactive-sensor expiry for quota sensors. */
    private static final long SENSOR_EXPIRY_SECONDS = TimeUnit.HOURS.toSeconds(1);

    private final QuotaType type;
    private final QuotaConfig config;
    private final Supplier<ClientQuotas> quotas;
    private final Time time;
    private final BrokerMetrics brokerMetrics;
    private final Metrics metrics;

    public ClientQuotaManager(QuotaType type, QuotaConfig config, Supplier<ClientQuotas> quotas, Time time,
                              BrokerMetrics brokerMetrics) {
        this.type = type;
        this.config = config;
        this.quotas = quotas;
        this.time = time;
        this.brokerMetrics = brokerMetrics;
        this.metrics = new Metrics(metricConfig(null), List.of(new BeanRemover()), time, true);
    }

    private MetricConfig metricConfig(Quota quota) {
        MetricConfig metricConfig = new MetricConfig().samples(config.windowNum())
                .timeWindow(config.windowSizeSeconds(), TimeUnit.SECONDS);
        return quota == null ? metricConfig : metricConfig.quota(quota);
    }

    /**
     * Records {@code bytes} for a client and answers how long it is to be throttled, 0 if it is within its quota or
     * has none.
     *
     * @param user     the principal's name (not yet sanitized)
     * @param clientId the client id of the request header
     */
    public long recordAndGetThrottleTimeMs(String user, String clientId, long bytes) {
        Measured measured = measured(user, clientId);
        if (measured == null) {
            return 0;
        }
        long now = time.milliseconds();
        try {
            measured.bytes.record(bytes, now);
            return 0;
        } catch (QuotaViolationException e) {
            long throttleMs = throttleTimeMs(e, measured.rate, now);
            measured.throttle.record(throttleMs, now);
            return throttleMs;
        }
    }

    /** Takes back bytes recorded for a response that was not sent after all (a throttled fetch goes out empty). */
    public void unrecord(String user, String clientId, long bytes) {
        Measured measured = measured(user, clientId);
        if (measured != null) {
            measured.bytes.record(-bytes, time.milliseconds(), false);
        }
    }

    /**
     * The most bytes one response may carry for this client without being sure to exceed its quota on its own:
     * the bound over all windows but the current one (Kafka's {@code getMaxValueInQuotaWindow}); a fetch asks for
     * no more than this, or a client whose every response is over the quota would starve. Unbounded without a quota.
     */
    public int maxValueInQuotaWindow(String user, String clientId) {
        ClientQuotas.Applied applied = applied(user, clientId);
        if (applied == null) {
            return Integer.MAX_VALUE;
        }
        double max = applied.bound() * Math.max(1, config.windowNum() - 1) * config.windowSizeSeconds();
        return (int) Math.min(Integer.MAX_VALUE, max);
    }

    private long throttleTimeMs(QuotaViolationException e, Rate rate, long now) {
        double windowMs = rate.windowSize(metricConfig(null), now);
        double over = e.value() - e.bound();
        long throttleMs = Math.round(over / e.bound() * windowMs);
        return Math.max(0, Math.min(throttleMs, config.maxThrottleTimeMs()));
    }

    /** A client's sensors and its rate, for the entity whose quota applies to it. */
    private record Measured(Sensor bytes, Rate rate, Sensor throttle) {
    }

    /** The quota that applies to a client, or null. */
    private ClientQuotas.Applied applied(String user, String clientId) {
        ClientQuotas now = quotas.get();
        if (now.values().isEmpty()) {
            return null; // the common case, on every produce and fetch: no quotas at all, nothing to encode
        }
        return now.resolve(type, Sanitizer.sanitize(user), Sanitizer.sanitize(clientId));
    }

    private Measured measured(String user, String clientId) {
        ClientQuotas.Applied applied = applied(user, clientId);
        if (applied == null) {
            return null;
        }
        String suffix = applied.userTag() + ":" + applied.clientIdTag();
        Map<String, String> tags = Map.of("user", applied.userTag(), "client-id", applied.clientIdTag());
        MetricName rateName = metrics.metricName("byte-rate", type.metricGroup(), "Tracking byte-rate per user/client-id", tags);
        Quota quota = Quota.upperBound(applied.bound());
        synchronized (this) {
            Sensor bytes = metrics.getSensor(type.metricGroup() + "-" + suffix);
            Sensor throttle = metrics.getSensor(type.metricGroup() + "ThrottleTime-" + suffix);
            if (bytes == null || throttle == null) {
                throttle = metrics.sensor(type.metricGroup() + "ThrottleTime-" + suffix, metricConfig(null),
                        SENSOR_EXPIRY_SECONDS);
                MetricName throttleName = metrics.metricName("throttle-time", type.metricGroup(),
                        "Tracking average throttle-time per user/client-id", tags);
                throttle.add(throttleName, new Avg());
                throttle.add(metrics.metricName("throttle-time-max", type.metricGroup(),
                        "Tracking maximum throttle-time per user/client-id", tags), new Max());
                bytes = metrics.sensor(type.metricGroup() + "-" + suffix, metricConfig(quota), SENSOR_EXPIRY_SECONDS);
                bytes.add(rateName, new Rate(), metricConfig(quota));
                publish(applied, rateName, throttleName);
            }
            KafkaMetric rateMetric = metrics.metric(rateName);
            if (!quota.equals(rateMetric.config().quota())) {
                rateMetric.config(metricConfig(quota)); // the quota was changed since the sensor was made
            }
            return new Measured(bytes, (Rate) rateMetric.measurable(), throttle);
        }
    }

    private void publish(ClientQuotas.Applied applied, MetricName rateName, MetricName throttleName) {
        brokerMetrics.attributes(beanName(applied.userTag(), applied.clientIdTag()), Map.of(
                "byte-rate", () -> value(rateName),
                "throttle-time", () -> value(throttleName)));
    }

    private double value(MetricName name) {
        KafkaMetric metric = metrics.metric(name);
        return metric == null ? 0.0 : ((Number) metric.metricValue()).doubleValue();
    }

    /** As Kafka's JMX reporter, an empty tag is left out of the name: {@code type=Fetch,client-id=app}. */
    private String beanName(String userTag, String clientIdTag) {
        List<String> tags = new java.util.ArrayList<>();
        if (!userTag.isEmpty()) {
            tags.addAll(List.of("user", userTag));
        }
        if (!clientIdTag.isEmpty()) {
            tags.addAll(List.of("client-id", clientIdTag));
        }
        return BrokerMetrics.name("kafka.server", type.metricGroup(), null, tags.toArray(String[]::new));
    }

    /** Removes a client's bean when its expired sensors are removed. */
    private final class BeanRemover implements MetricsReporter {
        @Override
        public void init(List<KafkaMetric> metrics) {
        }

        @Override
        public void metricChange(KafkaMetric metric) {
        }

        @Override
        public void metricRemoval(KafkaMetric metric) {
            if (metric.metricName().name().equals("byte-rate")) {
                Map<String, String> tags = metric.metricName().tags();
                brokerMetrics.remove(beanName(tags.get("user"), tags.get("client-id")));
            }
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    @Override
    public void close() {
        metrics.close();
    }
}
