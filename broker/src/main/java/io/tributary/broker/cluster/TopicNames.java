package io.tributary.broker.cluster;

import java.util.Collection;

import org.apache.kafka.common.errors.InvalidTopicException;

/**
 * Kafka's rules for topic names: 1 to 249 characters of {@code [a-zA-Z0-9._-]}, not {@code .} or {@code ..}; and no
 * two topics whose names differ only in {@code .} versus {@code _}, because metric names replace one by the other.
 */
public final class TopicNames {

    /** Kafka's limit: a partition directory {@code <topic>-<partition>} plus suffixes must fit a 255-byte name. */
    static final int MAX_LENGTH = 249;

    private TopicNames() {
    }

    /** @throws InvalidTopicException with Kafka's wording if {@code name} is not a legal topic name */
    public static void validate(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new InvalidTopicException(problem);
        }
    }

    /**
     * Whether a topic could have this name. Only such names may become ZooKeeper paths: a request naming anything else
     * (a NUL or a slash, say) is about a topic that cannot exist, and ZooKeeper would refuse the path.
     */
    public static boolean isLegal(String name) {
        return problem(name) == null;
    }

    /** Kafka's message for an illegal name, or null for a legal one. */
    private static String problem(String name) {
        if (name == null || name.isEmpty()) {
            return "Topic name is illegal, it can't be empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "Topic name cannot be \".\" or \"..\"";
        }
        if (name.length() > MAX_LENGTH) {
            return "Topic name is illegal, it can't be longer than " + MAX_LENGTH + " characters, topic name: "
                    + name;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!legal) {
                return "Topic name \"" + name + "\" is illegal, it contains a character other than ASCII "
                        + "alphanumerics, '.', '_' and '-'";
            }
        }
        return null;
    }

    /** @throws InvalidTopicException if {@code name} collides with one of {@code existing} */
    static void checkCollisions(String name, Collection<String> existing) {
        if (name.indexOf('.') < 0 && name.indexOf('_') < 0) {
            return;
        }
        String normalized = name.replace('.', '_');
        for (String other : existing) {
            if (!other.equals(name) && other.replace('.', '_').equals(normalized)) {
                throw new InvalidTopicException("Topic '" + name + "' collides with existing topic: " + other);
            }
        }
    }
}
