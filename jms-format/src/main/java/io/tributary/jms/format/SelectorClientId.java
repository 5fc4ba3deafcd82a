package io.tributary.jms.format;

/**
 * How a share-group member tells the broker its message selector: in its Kafka {@code client.id}, which the
 * broker sees in the header of every request. A JMS queue receiver's client id is its own id followed by
 * {@value #MARKER} and the selector text, for example {@code orders-c1-share;jms.selector=color = 'red'}; the
 * partition leader gives that member only the records the selector selects, and leaves the others available to the
 * group's other members with their delivery count untouched.
 *
 * <p>The client id carries the selector because the selector is fixed for the consumer's lifetime, as the client id
 * is, and because it then reaches every partition leader with every ShareFetch, with nothing to register or clean up
 * when a member comes or goes. A broker that does not know the convention (Apache Kafka) ignores it: the receiver
 * then releases what it does not select, as it would anyway.
 */
public final class SelectorClientId {

    /** Separates the member's own client id from its selector. */
    public static final String MARKER = ";jms.selector=";

    private SelectorClientId() {
    }

    /** {@code clientId} carrying {@code selector}; {@code clientId} itself when the selector selects everything. */
    public static String withSelector(String clientId, String selector) {
        if (selector == null || selector.isBlank()) {
            return clientId;
        }
        return clientId + MARKER + selector;
    }

    /** The selector a client id carries, or {@code null} when it carries none. */
    public static String selectorOf(String clientId) {
        if (clientId == null) {
            return null;
        }
        int at = clientId.indexOf(MARKER);
        return at < 0 ? null : clientId.substring(at + MARKER.length());
    }
}
