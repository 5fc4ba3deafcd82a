package io.tributary.jms;

import jakarta.jms.InvalidDestinationException;

/**
 * The rule every Tributary destination name obeys, because the name is the Kafka topic name: 1 to 249 characters from
 * {@code [a-zA-Z0-9._-]}, and neither {@code .} nor {@code ..}: Kafka's own topic-name rule, so a name accepted here is
 * never refused by the broker.
 *
 * <p>Stateless; any thread.
 */
final class TopicNames {

    static final int MAX_LENGTH = 249;

    private TopicNames() {
    }

    /**
     * Returns {@code name} if it is a legal topic name.
     *
     * @param kind what the name names, for the message: "queue", "topic", "temporary queue", ...
     * @throws InvalidDestinationException naming the name and the rule it breaks
     */
    static String check(String kind, String name) throws InvalidDestinationException {
        if (name == null || name.isEmpty()) {
            throw new InvalidDestinationException("a " + kind + " name must not be " + (name == null ? "null" : "empty")
                    + "; it is the Kafka topic name: 1 to " + MAX_LENGTH + " characters of [a-zA-Z0-9._-]");
        }
        if (name.length() > MAX_LENGTH) {
            throw new InvalidDestinationException(kind + " name '" + name + "' has " + name.length()
                    + " characters; a Kafka topic name has at most " + MAX_LENGTH);
        }
        if (name.equals(".") || name.equals("..")) {
            throw new InvalidDestinationException(kind + " name '" + name + "' is not a legal Kafka topic name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!legal) {
                throw new InvalidDestinationException(kind + " name '" + name + "' has '" + c + "' at index " + i
                        + "; a Kafka topic name may contain only [a-zA-Z0-9._-]");
            }
        }
        return name;
    }
}
