package io.tributary.jms.message;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageEOFException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;

import java.util.Enumeration;

/**
 * Copies a message of another provider's implementation into a Tributary message, so it can be sent: Jakarta
 * Messaging 3.1 §3.12 requires a provider to accept "foreign" messages.
 *
 * <p>The copy has the foreign message's headers, properties and body. Properties only the receiving provider sets
 * ({@code JMSXDeliveryCount}, {@code JMS_Tributary_*}) and JMSX properties Tributary does not carry are left out, as
 * are names that are not legal property names. To read a Bytes or Stream body the foreign message is {@code reset()},
 * and stays reset afterwards: its body is then read-only to the application until {@code clearBody()}. An
 * ObjectMessage body is deserialized by the foreign provider and serialized again.
 *
 * <p>Stateless; called on the sending thread.
 */
public final class ForeignMessages {

    private ForeignMessages() {
    }

    /** {@code message} itself if it is a {@link TributaryMessage}, otherwise a copy as described above. */
    public static TributaryMessage toTributary(Message message) throws JMSException {
        if (message instanceof TributaryMessage own) {
            return own;
        }
        TributaryMessage copy = copyBody(message);
        copy.setJMSMessageID(message.getJMSMessageID());
        copy.setJMSTimestamp(message.getJMSTimestamp());
        copy.setJMSCorrelationID(message.getJMSCorrelationID());
        copy.setJMSReplyTo(message.getJMSReplyTo());
        copy.setJMSDestination(message.getJMSDestination());
        copy.setJMSDeliveryMode(message.getJMSDeliveryMode());
        copy.setJMSRedelivered(message.getJMSRedelivered());
        copy.setJMSType(message.getJMSType());
        copy.setJMSExpiration(message.getJMSExpiration());
        copy.setJMSDeliveryTime(message.getJMSDeliveryTime());
        copy.setJMSPriority(message.getJMSPriority());
        Enumeration<?> names = message.getPropertyNames();
        while (names.hasMoreElements()) {
            copyProperty(message, copy, (String) names.nextElement());
        }
        return copy;
    }

    private static void copyProperty(Message from, TributaryMessage to, String name) throws JMSException {
        Object value = from.getObjectProperty(name);
        if (value != null && !TributaryMessage.isPropertyType(value)) {
            return;
        }
        try {
            PropertyNames.checkApplicationSettable(name, value);
        } catch (IllegalArgumentException | JMSException notCarried) {
            // A provider-owned, unsupported or ill-typed name the foreign provider allowed: not ours to send.
            return;
        }
        to.putProviderProperty(name, value);
    }

    private static TributaryMessage copyBody(Message message) throws JMSException {
        if (message instanceof TextMessage text) {
            return new TributaryTextMessage(text.getText());
        }
        if (message instanceof BytesMessage bytes) {
            bytes.reset();
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
            bytes.reset();
            TributaryBytesMessage copy = new TributaryBytesMessage();
            copy.writeBytes(body);
            return copy;
        }
        if (message instanceof MapMessage map) {
            TributaryMapMessage copy = new TributaryMapMessage();
            Enumeration<?> names = map.getMapNames();
            while (names.hasMoreElements()) {
                String name = (String) names.nextElement();
                copy.setObject(name, map.getObject(name));
            }
            return copy;
        }
        if (message instanceof StreamMessage stream) {
            stream.reset();
            TributaryStreamMessage copy = new TributaryStreamMessage();
            try {
                while (true) {
                    copy.writeObject(stream.readObject());
                }
            } catch (MessageEOFException end) {
                // Every field copied: StreamMessage has no other way to tell the end.
            }
            stream.reset();
            return copy;
        }
        if (message instanceof ObjectMessage object) {
            TributaryObjectMessage copy = new TributaryObjectMessage();
            copy.setObject(object.getObject());
            return copy;
        }
        return new TributaryMessage();
    }
}
