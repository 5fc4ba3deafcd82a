package io.tributary.broker.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One scrape's samples, grouped by metric family and written in the Prometheus text exposition format 0.0.4:
 *
 * <pre>
 * # TYPE kafka_server_brokertopicmetrics_messagesin_total counter
 * kafka_server_brokertopicmetrics_messagesin_total{topic="orders"} 250
 * </pre>
 *
 * Every family's samples follow its one {@code # TYPE} line, families in name order; label values are escaped
 * ({@code \\}, {@code \"}, {@code \n}); integral values are written without a fraction, the others as Java writes
 * doubles, infinities and NaN as {@code +Inf}, {@code -Inf} and {@code NaN}. A family keeps the type of its first
 * sample. Not thread-safe: one per scrape, on the scrape's thread.
 */
final class PrometheusText {

    /** The metric types of the format that the broker writes. */
    enum Type {
        COUNTER, GAUGE;

        String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private record Family(Type type, List<String> lines) {
    }

    private final Map<String, Family> families = new TreeMap<>();

    void add(PrometheusNames.Series series, Type type, double value) {
        add(series.family(), series.labels(), type, value);
    }

    void add(String family, Map<String, String> labels, Type type, double value) {
        StringBuilder line = new StringBuilder(family);
        if (!labels.isEmpty()) {
            line.append('{');
            boolean first = true;
            for (Map.Entry<String, String> label : labels.entrySet()) {
                if (!first) {
                    line.append(',');
                }
                first = false;
                line.append(label.getKey()).append("=\"");
                escape(label.getValue(), line);
                line.append('"');
            }
            line.append('}');
        }
        line.append(' ').append(format(value)).append('\n');
        families.computeIfAbsent(family, name -> new Family(type, new ArrayList<>())).lines().add(line.toString());
    }

    /** The exposition text. */
    String write() {
        StringBuilder text = new StringBuilder(families.size() * 96);
        for (Map.Entry<String, Family> family : families.entrySet()) {
            text.append("# TYPE ").append(family.getKey()).append(' ')
                    .append(family.getValue().type().wireName()).append('\n');
            for (String line : family.getValue().lines()) {
                text.append(line);
            }
        }
        return text.toString();
    }

    static String format(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    private static void escape(String value, StringBuilder out) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
    }
}
