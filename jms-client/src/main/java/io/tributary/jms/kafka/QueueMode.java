package io.tributary.jms.kafka;

import java.util.Locale;

/**
 * How the receivers of a queue share its messages (docs/jms-mapping.md, "Queues: share groups or consumer groups").
 * <ul>
 *   <li>{@link #SHARE}: the receivers are members of the queue's Kafka share group (KIP-932): any number consume in
 *       parallel whatever the partition count, each message is acknowledged on its own (accepted, released for
 *       redelivery with the broker's delivery count, or rejected), and a selector's rejected message is released for
 *       the other receivers. No order between messages, not even of one partition or one {@code JMSXGroupID}.</li>
 *   <li>{@link #GROUP}: the receivers share the queue's classic consumer group: a partition feeds one receiver at a
 *       time, in offset order ({@code JMSXGroupID} order holds), the position is committed per partition, a
 *       transacted session's consumption commits in its Kafka transaction, and a message one receiver's selector
 *       rejects is passed over for the whole queue.</li>
 * </ul>
 *
 * <p>The same two values are the connection factory's {@code subscriptionMode}, for the consumers of shared topic
 * subscriptions: {@link #SHARE}, members of the subscription's share group; {@link #GROUP}, of its consumer group
 * (docs/jms-mapping.md, "Shared subscriptions").
 *
 * <p>Immutable; any thread.
 */
public enum QueueMode {
    SHARE, GROUP;

    /**
     * {@code share} or {@code group}, in any case.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static QueueMode parse(String text) {
        return parse(text, "queueMode");
    }

    /**
     * {@code share} or {@code group}, in any case, as the value of the setting {@code property}.
     *
     * @throws IllegalArgumentException naming the property, the value and the accepted ones
     */
    public static QueueMode parse(String text, String property) {
        if (text != null) {
            String value = text.strip().toLowerCase(Locale.ROOT);
            for (QueueMode mode : values()) {
                if (mode.text().equals(value)) {
                    return mode;
                }
            }
        }
        throw new IllegalArgumentException(property + " must be 'share' or 'group', not '" + text + "'");
    }

    /** The configuration value: {@code share} or {@code group}. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
