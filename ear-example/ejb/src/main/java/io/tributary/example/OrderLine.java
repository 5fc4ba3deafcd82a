package io.tributary.example;

import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;

/**
 * What a customer orders: who, which item, how many. This is also the format of the messages on the
 * {@value OrderPublisher#ORDERS} topic: a {@link MapMessage} with the entries {@code customer} (String),
 * {@code item} (String) and {@code quantity} (int); {@link #toMessage} writes it, {@link #fromMessage} reads it.
 *
 * <p>Immutable; the constructor rejects a blank customer or item and a quantity below 1.
 */
public record OrderLine(String customer, String item, int quantity) {

    static final String CUSTOMER = "customer";
    static final String ITEM = "item";
    static final String QUANTITY = "quantity";
    /** The columns' width (Order); longer names are refused here rather than by the database. */
    static final int MAX_NAME_LENGTH = 100;

    public OrderLine {
        requireName(CUSTOMER, customer);
        requireName(ITEM, item);
        if (quantity < 1) {
            throw new IllegalArgumentException("quantity must be at least 1, not " + quantity);
        }
    }

    private static void requireName(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank");
        }
        if (value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(field + " must not be longer than " + MAX_NAME_LENGTH + " characters");
        }
    }

    MapMessage toMessage(JMSContext context) {
        MapMessage message = context.createMapMessage();
        try {
            message.setString(CUSTOMER, customer);
            message.setString(ITEM, item);
            message.setInt(QUANTITY, quantity);
        } catch (JMSException e) {
            // A new MapMessage is writable: this does not happen.
            throw new IllegalStateException("cannot write order " + this, e);
        }
        return message;
    }

    /**
     * The order a message carries.
     *
     * @throws MessageFormatException if it is not a MapMessage with the three entries, or their values are invalid
     */
    static OrderLine fromMessage(Message message) throws JMSException {
        if (!(message instanceof MapMessage map)) {
            throw new MessageFormatException("an order is a MapMessage, not " + message.getClass().getSimpleName());
        }
        if (!map.itemExists(QUANTITY)) {
            throw new MessageFormatException("the order has no " + QUANTITY);
        }
        try {
            return new OrderLine(map.getString(CUSTOMER), map.getString(ITEM), map.getInt(QUANTITY));
        } catch (IllegalArgumentException e) {
            throw new MessageFormatException("invalid order: " + e.getMessage());
        }
    }
}
