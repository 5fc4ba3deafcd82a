package io.tributary.jms.message;

import io.tributary.jms.TributaryQueue;
import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class ForeignMessagesTest {

    @Test
    void aTributaryMessageIsUsedAsItIs() throws JMSException {
        TributaryTextMessage own = new TributaryTextMessage("x");
        assertSame(own, ForeignMessages.toTributary(own));
    }

    @Test
    void aForeignTextMessageIsCopiedWithHeadersAndTheApplicationsProperties() throws JMSException {
        TributaryTextMessage original = new TributaryTextMessage("body");
        original.setJMSMessageID("ID:f");
        original.setJMSTimestamp(3);
        original.setJMSCorrelationID("c");
        original.setJMSReplyTo(TributaryQueue.of("r"));
        original.setJMSDestination(TributaryQueue.of("d"));
        original.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        original.setJMSType("t");
        original.setJMSExpiration(4);
        original.setJMSDeliveryTime(5);
        original.setJMSPriority(6);
        original.setIntProperty("count", 2);
        original.setStringProperty("JMSXGroupID", "g");
        original.setDeliveryCount(3);
        original.putProviderProperty("JMS_Tributary_Offset", 10L);

        TributaryTextMessage copy = assertInstanceOf(TributaryTextMessage.class,
                ForeignMessages.toTributary(foreign(TextMessage.class, original)));

        assertEquals("body", copy.getText());
        assertEquals("ID:f", copy.getJMSMessageID());
        assertEquals(3, copy.getJMSTimestamp());
        assertEquals("c", copy.getJMSCorrelationID());
        assertEquals(TributaryQueue.of("r"), copy.getJMSReplyTo());
        assertEquals(TributaryQueue.of("d"), copy.getJMSDestination());
        assertEquals(DeliveryMode.NON_PERSISTENT, copy.getJMSDeliveryMode());
        assertEquals("t", copy.getJMSType());
        assertEquals(4, copy.getJMSExpiration());
        assertEquals(5, copy.getJMSDeliveryTime());
        assertEquals(6, copy.getJMSPriority());
        assertEquals(List.of("count", "JMSXGroupID"), Collections.list(copy.getPropertyNames()));
        copy.setText("writable");
    }

    @Test
    void aForeignBytesMessageInWriteModeIsCopiedAndLeftReset() throws JMSException {
        TributaryBytesMessage original = new TributaryBytesMessage();
        original.writeInt(7);
        BytesMessage foreign = foreign(BytesMessage.class, original);
        TributaryBytesMessage copy = assertInstanceOf(TributaryBytesMessage.class,
                ForeignMessages.toTributary(foreign));
        assertArrayEquals(new byte[] {0, 0, 0, 7}, copy.bodyBytes());
        assertEquals(7, foreign.readInt());
    }

    @Test
    void foreignMapStreamAndObjectBodiesAreCopied() throws JMSException {
        TributaryMapMessage map = new TributaryMapMessage();
        map.setChar("c", 'x');
        map.setBytes("b", new byte[] {1});
        TributaryMapMessage mapCopy = assertInstanceOf(TributaryMapMessage.class,
                ForeignMessages.toTributary(foreign(MapMessage.class, map)));
        assertEquals('x', mapCopy.getChar("c"));
        assertArrayEquals(new byte[] {1}, mapCopy.getBytes("b"));

        TributaryStreamMessage stream = new TributaryStreamMessage();
        stream.writeInt(1);
        stream.writeObject(null);
        stream.writeBytes(new byte[] {2});
        TributaryStreamMessage streamCopy = assertInstanceOf(TributaryStreamMessage.class,
                ForeignMessages.toTributary(foreign(StreamMessage.class, stream)));
        streamCopy.reset();
        assertEquals(1, streamCopy.readInt());
        assertNull(streamCopy.readObject());
        assertArrayEquals(new byte[] {2}, (byte[]) streamCopy.readObject());

        TributaryObjectMessage object = new TributaryObjectMessage();
        object.setObject(new ArrayList<>(List.of("o")));
        TributaryObjectMessage objectCopy = assertInstanceOf(TributaryObjectMessage.class,
                ForeignMessages.toTributary(foreign(ObjectMessage.class, object)));
        assertEquals(List.of("o"), objectCopy.getObject());

        TributaryMessage plain = ForeignMessages.toTributary(foreign(Message.class, new TributaryMessage()));
        assertEquals(TributaryMessage.class, plain.getClass());
        assertFalse(plain.getPropertyNames().hasMoreElements());
    }

    /** Another provider's message: a proxy that is not a TributaryMessage, delegating to one. */
    private static <T extends Message> T foreign(Class<T> type, Message delegate) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            try {
                return method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }
}
