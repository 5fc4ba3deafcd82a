package io.tributary.broker.http;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import io.tributary.broker.metrics.BrokerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds a broker's metrics (its {@link BrokerMetrics}, the same values as its JMX beans) to a scrape under the JMX
 * exporter's names ({@link PrometheusNames}): meters as counters of their {@code Count}, gauges' numeric values
 * (booleans as 1 and 0; text gauges such as the ZooKeeper session state are left out, as the exporter leaves them),
 * histograms and timers as the quantiles 0.50, 0.75, 0.95, 0.98, 0.99 and 0.999 of their decaying reservoirs (timers
 * in milliseconds, as on JMX) and their {@code _count}. Reads on the scrape's thread; reading a gauge calls its
 * supplier there (the ReplicaManager's counts walk the hosted partitions, which takes no lock of the request path).
 */
final class MetricsCollector {

    private static final Logger log = LoggerFactory.getLogger(MetricsCollector.class);

    /** The percentiles JMX shows ({@code 50thPercentile} ...), as quantiles and as the attribute names' digits. */
    private static final double[] QUANTILES = {0.50, 0.75, 0.95, 0.98, 0.99, 0.999};
    private static final String[] DIGITS = {"50", "75", "95", "98", "99", "999"};
    private static final double NANOS_PER_MS = 1_000_000.0;

    private final BrokerMetrics metrics;

    MetricsCollector(BrokerMetrics metrics) {
        this.metrics = metrics;
    }

    void collect(PrometheusText text) {
        metrics.forEach(new BrokerMetrics.Visitor() {
            @Override
            public void metric(String name, Metric metric) {
                try {
                    add(text, name, metric);
                } catch (RuntimeException e) {
                    // One broken gauge must not cost the whole scrape.
                    log.debug("Cannot read the metric {} for a scrape", name, e);
                }
            }

            @Override
            public void attribute(String name, String attribute, double value) {
                text.add(PrometheusNames.attribute(name, attribute), PrometheusText.Type.GAUGE, value);
            }
        });
    }

    private static void add(PrometheusText text, String name, Metric metric) {
        if (metric instanceof Meter meter) {
            PrometheusNames.Series series = PrometheusNames.meterCount(name);
            text.add(series, PrometheusText.Type.COUNTER, meter.getCount());
        } else if (metric instanceof Timer timer) {
            addSnapshot(text, name, timer.getSnapshot(), timer.getCount(), NANOS_PER_MS);
        } else if (metric instanceof Histogram histogram) {
            addSnapshot(text, name, histogram.getSnapshot(), histogram.getCount(), 1.0);
        } else if (metric instanceof Gauge<?> gauge) {
            Object value = gauge.getValue();
            if (value instanceof Number number) {
                text.add(PrometheusNames.gauge(name), PrometheusText.Type.GAUGE, number.doubleValue());
            } else if (value instanceof Boolean bool) {
                text.add(PrometheusNames.gauge(name), PrometheusText.Type.GAUGE, bool ? 1 : 0);
            }
        }
    }

    private static void addSnapshot(PrometheusText text, String name, Snapshot snapshot, long count, double divisor) {
        for (int i = 0; i < QUANTILES.length; i++) {
            text.add(PrometheusNames.percentile(name, DIGITS[i]), PrometheusText.Type.GAUGE,
                    snapshot.getValue(QUANTILES[i]) / divisor);
        }
        text.add(PrometheusNames.histogramCount(name), PrometheusText.Type.COUNTER, count);
    }
}
