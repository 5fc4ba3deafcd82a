package io.tributary.jms.selector;

import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The message header fields that a selector may reference, and the value each has in a selector. Jakarta Messaging
 * 3.1 section 3.8.1.1 restricts header references to these six; JMSDestination and JMSReplyTo are destinations,
 * JMSExpiration, JMSRedelivered and JMSDeliveryTime depend on when the selector is applied, and none of them is
 * listed. Section 3.8.1.3 gives JMSDeliveryMode the string values {@code 'PERSISTENT'} and
 * {@code 'NON_PERSISTENT'}.
 */
enum HeaderField {
    JMS_DELIVERY_MODE("JMSDeliveryMode", ValueType.STRING) {
        @Override
        Object read(Message message) throws JMSException {
            return switch (message.getJMSDeliveryMode()) {
                case DeliveryMode.PERSISTENT -> "PERSISTENT";
                case DeliveryMode.NON_PERSISTENT -> "NON_PERSISTENT";
                default -> null;
            };
        }
    },
    JMS_PRIORITY("JMSPriority", ValueType.NUMBER) {
        @Override
        Object read(Message message) throws JMSException {
            return message.getJMSPriority();
        }
    },
    JMS_MESSAGE_ID("JMSMessageID", ValueType.STRING) {
        @Override
        Object read(Message message) throws JMSException {
            return message.getJMSMessageID();
        }
    },
    JMS_TIMESTAMP("JMSTimestamp", ValueType.NUMBER) {
        @Override
        Object read(Message message) throws JMSException {
            return message.getJMSTimestamp();
        }
    },
    JMS_CORRELATION_ID("JMSCorrelationID", ValueType.STRING) {
        @Override
        Object read(Message message) throws JMSException {
            return message.getJMSCorrelationID();
        }
    },
    JMS_TYPE("JMSType", ValueType.STRING) {
        @Override
        Object read(Message message) throws JMSException {
            return message.getJMSType();
        }
    };

    /** The names of the selectable header fields, for error messages. */
    static final String NAMES = Arrays.stream(values()).map(h -> h.selectorName).collect(Collectors.joining(", "));

    private final String selectorName;
    private final ValueType type;

    HeaderField(String selectorName, ValueType type) {
        this.selectorName = selectorName;
        this.type = type;
    }

    ValueType type() {
        return type;
    }

    /** The header's value as a selector sees it: a String, an Integer (priority), a Long (timestamp) or null. */
    abstract Object read(Message message) throws JMSException;

    /** The selectable header field with this exact (case-sensitive) name, or {@code null}. */
    static HeaderField named(String name) {
        return switch (name) {
            case "JMSDeliveryMode" -> JMS_DELIVERY_MODE;
            case "JMSPriority" -> JMS_PRIORITY;
            case "JMSMessageID" -> JMS_MESSAGE_ID;
            case "JMSTimestamp" -> JMS_TIMESTAMP;
            case "JMSCorrelationID" -> JMS_CORRELATION_ID;
            case "JMSType" -> JMS_TYPE;
            default -> null;
        };
    }

    /**
     * Whether a selector may not use this name: section 3.8.1.1 divides names beginning with "JMS" into the header
     * fields above, the Jakarta Messaging defined properties ("JMSX...") and provider-specific properties
     * ("JMS_..."); any other "JMS" name (JMSDestination, JMSReplyTo, JMSExpiration, JMSRedelivered,
     * JMSDeliveryTime, or a misspelling such as JMSpriority) is none of them.
     */
    static boolean isForbidden(String name) {
        return name.startsWith("JMS") && !name.startsWith("JMSX") && !name.startsWith("JMS_") && named(name) == null;
    }
}
