package io.tributary.jms.kafka;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text form of pass-through Kafka client properties where a setting is a single string (the resource adapter's
 * config properties: its own, its connection definitions' and its activation specs' {@code kafkaProperties}):
 * {@code name=value} entries separated by {@code ;}, for example
 * {@code security.protocol=SASL_SSL;producer.linger.ms=5}. A backslash takes the next character literally, so
 * {@code \;} is a semicolon inside a value (a {@code sasl.jaas.config} ends with one), {@code \=} an equals sign in a
 * name and {@code \\} a backslash. Names and values are trimmed; empty entries are skipped; a later entry with the
 * same name wins. Prefixes {@code producer.}, {@code consumer.} and {@code admin.} address one kind of Kafka client
 * ({@link KafkaClientConfig}); the properties JMS semantics own are refused ({@link #checkNotOwned}).
 *
 * <p>Errors name the setting the text comes from first, then the problem ({@code "kafkaProperties entry 'x' is not
 * name=value ..."}), the form of the resource adapter's {@code InvalidPropertyException}s.
 *
 * <p>Stateless: any thread.
 */
public final class KafkaPropertiesText {

    private KafkaPropertiesText() {
    }

    /**
     * The properties in {@code text}, in order.
     *
     * @param property the setting the text comes from, named first in errors
     * @param text     the text; null or blank means none
     * @throws IllegalArgumentException naming the property and the entry, for an entry without {@code =} or with an
     *         empty name, or a text ending in an unfinished escape
     */
    public static Map<String, String> parse(String property, String text) {
        if (text == null || text.isBlank()) {
            return Map.of();
        }
        Map<String, String> properties = new LinkedHashMap<>();
        int start = 0;
        while (start <= text.length()) {
            int end = indexOfUnescaped(property, text, ';', start);
            String entry = text.substring(start, end);
            if (!entry.isBlank()) {
                int equals = indexOfUnescaped(property, entry, '=', 0);
                if (equals == entry.length()) {
                    throw new IllegalArgumentException(property + " entry '" + entry.trim() + "' is not name=value "
                            + "(entries are separated by ';', and '\\;' is a semicolon inside a value)");
                }
                String name = unescape(entry.substring(0, equals)).trim();
                if (name.isEmpty()) {
                    throw new IllegalArgumentException(property + " entry '" + entry.trim() + "' has no name");
                }
                properties.put(name, unescape(entry.substring(equals + 1)).trim());
            }
            start = end + 1;
        }
        return Collections.unmodifiableMap(properties);
    }

    /**
     * Refuses the properties that JMS semantics own ({@link KafkaClientConfig#checkNotOwned}).
     *
     * @param property the config property the properties come from, named first in the message
     * @throws IllegalArgumentException {@code "<property> sets '<name>': <why Tributary decides it>"}
     */
    public static void checkNotOwned(String property, Map<String, String> properties) {
        for (String name : properties.keySet()) {
            try {
                KafkaClientConfig.checkNotOwned(name);
            } catch (OwnedPropertyException e) {
                throw new IllegalArgumentException(property + " sets '" + name + "': " + e.reason(), e);
            }
        }
    }

    /** The index of the first {@code c} at or after {@code from} that no backslash escapes, or the length. */
    private static int indexOfUnescaped(String property, String text, char c, int from) {
        for (int i = from; i < text.length(); i++) {
            char at = text.charAt(i);
            if (at == '\\') {
                if (i + 1 == text.length()) {
                    throw new IllegalArgumentException(property + " '" + text + "' ends with an unfinished '\\' "
                            + "escape");
                }
                i++;
            } else if (at == c) {
                return i;
            }
        }
        return text.length();
    }

    private static String unescape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char at = text.charAt(i);
            if (at == '\\' && i + 1 < text.length()) {
                i++;
                at = text.charAt(i);
            }
            out.append(at);
        }
        return out.toString();
    }
}
