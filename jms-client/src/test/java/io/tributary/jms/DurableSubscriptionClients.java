package io.tributary.jms;

import java.util.ArrayList;
import java.util.List;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

/**
 * What the durable-subscription tests do around a subscriber: open its connection with its client id (which names
 * the subscription, with the subscription's name), publish to its topic from a connection of its own, as another
 * application would, and read the texts of what it received.
 *
 * <p>Stateless; test thread.
 */
final class DurableSubscriptionClients {

    private DurableSubscriptionClients() {
    }

    /** A new, stopped connection with client id {@code clientId}; the caller closes it. */
    static Connection subscriberConnection(TributaryConnectionFactory factory, String clientId) throws JMSException {
        Connection connection = factory.createConnection();
        connection.setClientID(clientId);
        return connection;
    }

    /** Publishes each text as a TextMessage to {@code topic}, in order; each send waits for the broker's ack. */
    static void publish(TributaryConnectionFactory factory, String topic, String... texts) throws JMSException {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createTopic(topic));
            for (String text : texts) {
                producer.send(session.createTextMessage(text));
            }
        }
    }

    /** The texts of TextMessages, in order. */
    static List<String> texts(List<Message> messages) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (Message message : messages) {
            texts.add(((TextMessage) message).getText());
        }
        return texts;
    }
}
