package io.tributary.jms;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;

/**
 * What one connection did with one destination, as the attributes of its
 * {@code io.tributary.jms:type=destination-metrics,connection=...,destination=...} bean ({@link ConnectionMetrics}):
 * <ul>
 *   <li>{@code messages-sent-total}/{@code -rate}: messages handed to the cluster (a transacted session's when
 *       {@code send} returns, before the commit);</li>
 *   <li>{@code messages-received-total}/{@code -rate}: messages delivered to the application, by {@code receive} or
 *       to a {@code MessageListener};</li>
 *   <li>{@code messages-acknowledged-total}/{@code -rate}: delivered messages acknowledged (AUTO and DUPS_OK after
 *       delivery, CLIENT at {@code acknowledge()}, transacted at commit);</li>
 *   <li>{@code messages-redelivered-total}/{@code -rate}: deliveries with {@code JMSRedelivered} set;</li>
 *   <li>{@code messages-dead-lettered-total}/{@code -rate}: messages of a share-group queue or subscription that
 *       failed at their last delivery (or could not be read) and went to the dead-letter queue, or without one were
 *       rejected;</li>
 *   <li>{@code receive-wait-time-avg}/{@code -max} (ms) and {@code receive-calls-total}/{@code -rate}: how long
 *       {@code receive}, {@code receive(timeout)} and {@code receiveNoWait} calls waited, whether a message came or
 *       not.</li>
 * </ul>
 * Rates are per second over Kafka's default window (two 30 s samples); averages and maxima over the same window.
 *
 * <p>Threads: any; {@link Sensor#record} is thread-safe and allocates nothing.
 */
final class DestinationMetrics {

    static final String GROUP = "destination-metrics";

    /** Of a connection without metrics: records nothing. */
    static final DestinationMetrics NONE = new DestinationMetrics(null, null, null, null, null, null);

    private final Sensor sent;
    private final Sensor received;
    private final Sensor acknowledged;
    private final Sensor redelivered;
    private final Sensor deadLettered;
    private final Sensor receiveWait;

    private DestinationMetrics(Sensor sent, Sensor received, Sensor acknowledged, Sensor redelivered,
                               Sensor deadLettered, Sensor receiveWait) {
        this.sent = sent;
        this.received = received;
        this.acknowledged = acknowledged;
        this.redelivered = redelivered;
        this.deadLettered = deadLettered;
        this.receiveWait = receiveWait;
    }

    static DestinationMetrics register(Metrics metrics, String connection, String destination) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("connection", connection);
        tags.put("destination", destination);
        String prefix = destination + ".";
        Sensor receiveWait = metrics.sensor(prefix + "receive-wait");
        receiveWait.add(name(metrics, "receive-wait-time-avg", "Milliseconds a receive call waited, average",
                tags), new Avg());
        receiveWait.add(name(metrics, "receive-wait-time-max", "Milliseconds a receive call waited, maximum",
                tags), new Max());
        receiveWait.add(new Meter(TimeUnit.SECONDS, new org.apache.kafka.common.metrics.stats.WindowedCount(),
                name(metrics, "receive-calls-rate", "Receive calls per second", tags),
                name(metrics, "receive-calls-total", "Receive calls", tags)));
        return new DestinationMetrics(
                meter(metrics, prefix, "messages-sent", "messages handed to the cluster", tags),
                meter(metrics, prefix, "messages-received", "messages delivered to the application", tags),
                meter(metrics, prefix, "messages-acknowledged", "delivered messages acknowledged", tags),
                meter(metrics, prefix, "messages-redelivered", "deliveries with JMSRedelivered set", tags),
                meter(metrics, prefix, "messages-dead-lettered", "messages dead-lettered or rejected", tags),
                receiveWait);
    }

    private static Sensor meter(Metrics metrics, String prefix, String what, String description,
                                Map<String, String> tags) {
        Sensor sensor = metrics.sensor(prefix + what);
        sensor.add(new Meter(name(metrics, what + "-rate", "The number of " + description + " per second", tags),
                name(metrics, what + "-total", "The number of " + description, tags)));
        return sensor;
    }

    private static MetricName name(Metrics metrics, String name, String description, Map<String, String> tags) {
        return metrics.metricName(name, GROUP, description, tags);
    }

    void sent() {
        if (sent != null) {
            sent.record();
        }
    }

    /** A message was handed to the application; {@code redelivered}: its {@code JMSRedelivered}. */
    void received(boolean redelivered) {
        if (received != null) {
            received.record();
            if (redelivered) {
                this.redelivered.record();
            }
        }
    }

    void acknowledged(int count) {
        if (acknowledged != null && count > 0) {
            acknowledged.record(count);
        }
    }

    void deadLettered(long count) {
        if (deadLettered != null && count > 0) {
            deadLettered.record(count);
        }
    }

    void receiveWaited(long nanos) {
        if (receiveWait != null) {
            receiveWait.record(nanos / 1_000_000.0);
        }
    }
}
