package io.tributary.jms;

import java.io.Serializable;
import java.util.Enumeration;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageEOFException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;

import io.tributary.jms.message.TributaryBytesMessage;
import io.tributary.jms.message.TributaryMapMessage;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.message.TributaryObjectMessage;
import io.tributary.jms.message.TributaryStreamMessage;
import io.tributary.jms.message.TributaryTextMessage;

/**
 * Messages of other providers, which a producer must accept (§3.12): copied into this provider's types with their
 * body, properties and the headers the sender sets (correlation id, type, reply-to).
 */
final class ForeignMessages {

    private ForeignMessages() {
    }

    static TributaryMessage copy(Message foreign) throws JMSException {
        TributaryMessage copy;
        if (foreign instanceof TextMessage text) {
            TributaryTextMessage message = new TributaryTextMessage();
            message.setText(text.getText());
            copy = message;
        } else if (foreign instanceof BytesMessage bytes) {
            bytes.reset();
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
            TributaryBytesMessage message = new TributaryBytesMessage();
            message.writeBytes(body);
            copy = message;
        } else if (foreign instanceof MapMessage map) {
            TributaryMapMessage message = new TributaryMapMessage();
            for (Enumeration<?> names = map.getMapNames(); names.hasMoreElements(); ) {
                String name = (String) names.nextElement();
                message.setObject(name, map.getObject(name));
            }
            copy = message;
        } else if (foreign instanceof ObjectMessage object) {
            TributaryObjectMessage message = new TributaryObjectMessage();
            Serializable body = object.getObject();
            message.setObject(body);
            copy = message;
        } else if (foreign instanceof StreamMessage stream) {
            stream.reset();
            TributaryStreamMessage message = new TributaryStreamMessage();
            try {
                while (true) {
                    message.writeObject(stream.readObject());
                }
            } catch (MessageEOFException end) {
                // all fields copied
            }
            copy = message;
        } else {
            copy = new TributaryMessage();
        }
        for (Enumeration<?> names = foreign.getPropertyNames(); names.hasMoreElements(); ) {
            String name = (String) names.nextElement();
            if (!name.startsWith("JMS_Tributary_") && !name.equals("JMSXDeliveryCount")) {
                copy.setObjectProperty(name, foreign.getObjectProperty(name));
            }
        }
        byte[] correlationBytes = null;
        try {
            correlationBytes = foreign.getJMSCorrelationIDAsBytes();
        } catch (UnsupportedOperationException | JMSException ignored) {
            // a provider without byte correlation ids
        }
        if (correlationBytes != null && foreign.getJMSCorrelationID() == null) {
            copy.setJMSCorrelationIDAsBytes(correlationBytes);
        } else {
            copy.setJMSCorrelationID(foreign.getJMSCorrelationID());
        }
        copy.setJMSType(foreign.getJMSType());
        if (foreign.getJMSReplyTo() != null) {
            copy.setJMSReplyTo(Destinations.normalize(foreign.getJMSReplyTo()));
        }
        return copy;
    }
}
