package io.tributary.broker.http;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a broker metric's JMX object name and attribute into the Prometheus name and labels that the Prometheus JMX
 * exporter's Kafka rules ({@code example_configs/kafka-2_0_0.yml}, with {@code lowercaseOutputName} and
 * {@code lowercaseOutputLabelNames}) give it, so that dashboards and alerts written against an exporter-scraped Kafka
 * read Tributary unchanged:
 *
 * <ul>
 *   <li>a meter's {@code Count}: {@code kafka_<domain>_<type>_<name without PerSec>_total}, the tags as labels
 *       ({@code kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=t} &rarr;
 *       {@code kafka_server_brokertopicmetrics_messagesin_total{topic="t"}}); a meter whose name lacks
 *       {@code PerSec} is {@code ..._<name>_count};</li>
 *   <li>a gauge's {@code Value}: {@code kafka_<domain>_<type>_<name>}
 *       ({@code kafka_log_log_size{topic,partition}});</li>
 *   <li>a histogram's or timer's {@code NNthPercentile}: {@code kafka_<domain>_<type>_<name>} with
 *       {@code quantile="0.NN"} ({@code 50thPercentile} &rarr; {@code 0.50}, {@code 999thPercentile} &rarr;
 *       {@code 0.999}), and its {@code Count} as {@code ..._count};</li>
 *   <li>an attribute of a Kafka-Metrics-style bean (no {@code name} key): {@code kafka_<domain>_<type>_<attribute>}
 *       with the bean's other keys as labels
 *       ({@code kafka_server_group_coordinator_metrics_group_count{protocol="classic"}}).</li>
 * </ul>
 *
 * Names are lower-cased and every run of characters outside {@code [a-zA-Z0-9_:]} becomes one {@code _}, as the
 * exporter does. Object names are those {@code BrokerMetrics.name} builds: {@code domain:type=...,name=...,k=v},
 * values unquoted. Stateless.
 */
final class PrometheusNames {

    /** One series: its metric family's name and its labels in the object name's key order. */
    record Series(String family, Map<String, String> labels) {
    }

    /** An object name taken apart. */
    record KafkaName(String domain, String type, String name, Map<String, String> tags) {

        static KafkaName parse(String objectName) {
            int colon = objectName.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("not a JMX object name: " + objectName);
            }
            String type = null;
            String name = null;
            Map<String, String> tags = new LinkedHashMap<>();
            for (String property : objectName.substring(colon + 1).split(",")) {
                int equals = property.indexOf('=');
                if (equals <= 0) {
                    throw new IllegalArgumentException("not a JMX object name: " + objectName);
                }
                String key = property.substring(0, equals);
                String value = property.substring(equals + 1);
                if (key.equals("type") && type == null) {
                    type = value;
                } else if (key.equals("name") && name == null) {
                    name = value;
                } else {
                    tags.put(key, value);
                }
            }
            if (type == null) {
                throw new IllegalArgumentException("no type in the object name " + objectName);
            }
            return new KafkaName(objectName.substring(0, colon), type, name, tags);
        }

        private String prefix() {
            return domain + "_" + type;
        }
    }

    private PrometheusNames() {
    }

    /** A meter's {@code Count}. */
    static Series meterCount(String objectName) {
        KafkaName parsed = KafkaName.parse(objectName);
        String name = parsed.name() == null ? "" : parsed.name();
        int perSec = name.lastIndexOf("PerSec");
        String family = perSec > 0 ? family(parsed.prefix(), name.substring(0, perSec)) + "_total"
                : family(parsed.prefix(), name) + "_count";
        return new Series(family, labels(parsed.tags()));
    }

    /** A gauge's {@code Value}. */
    static Series gauge(String objectName) {
        KafkaName parsed = KafkaName.parse(objectName);
        return new Series(family(parsed.prefix(), parsed.name()), labels(parsed.tags()));
    }

    /** A histogram's or timer's percentile, {@code quantile} as the digits of the attribute ({@code "99"}). */
    static Series percentile(String objectName, String percentileDigits) {
        KafkaName parsed = KafkaName.parse(objectName);
        Map<String, String> labels = labels(parsed.tags());
        labels.put("quantile", "0." + percentileDigits);
        return new Series(family(parsed.prefix(), parsed.name()), labels);
    }

    /** A histogram's or timer's {@code Count}. */
    static Series histogramCount(String objectName) {
        KafkaName parsed = KafkaName.parse(objectName);
        return new Series(family(parsed.prefix(), parsed.name()) + "_count", labels(parsed.tags()));
    }

    /** An attribute of a bean without a {@code name} key (Kafka Metrics' shape). */
    static Series attribute(String objectName, String attribute) {
        KafkaName parsed = KafkaName.parse(objectName);
        String family = parsed.name() == null ? family(parsed.prefix(), attribute)
                : family(parsed.prefix(), parsed.name() + "_" + attribute);
        return new Series(family, labels(parsed.tags()));
    }

    /** {@code prefix_suffix}, lower-cased, each run of other characters than {@code [a-z0-9_:]} as one '_'. */
    static String family(String prefix, String suffix) {
        String raw = suffix == null || suffix.isEmpty() ? prefix : prefix + "_" + suffix;
        return sanitize(raw.toLowerCase(Locale.ROOT));
    }

    private static Map<String, String> labels(Map<String, String> tags) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (Map.Entry<String, String> tag : tags.entrySet()) {
            labels.put(sanitize(tag.getKey().toLowerCase(Locale.ROOT)), tag.getValue());
        }
        return labels;
    }

    private static String sanitize(String name) {
        StringBuilder safe = new StringBuilder(name.length());
        boolean lastWasUnderscore = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':';
            if (valid) {
                safe.append(c);
                lastWasUnderscore = false;
            } else if (!lastWasUnderscore) {
                safe.append('_');
                lastWasUnderscore = true;
            }
        }
        return safe.toString();
    }
}
