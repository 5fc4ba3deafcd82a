package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.selector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;

import org.junit.jupiter.api.Test;

/** {@link MessageSelector#matches(jakarta.jms.Message)}: header fields from their getters, properties as set. */
class MessageSelectorMessageTest {

    @Test
    void deliveryModeReadsAsPersistentOrNonPersistent() throws JMSException {
        FakeMessage message = new FakeMessage();
        message.setJMSDeliveryMode(DeliveryMode.PERSISTENT);
        assertTrue(selector("JMSDeliveryMode = 'PERSISTENT'").matches(message));
        message.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        assertTrue(selector("JMSDeliveryMode = 'NON_PERSISTENT'").matches(message));
        assertFalse(selector("JMSDeliveryMode = 'PERSISTENT'").matches(message));
    }

    @Test
    void headerFieldsReadFromTheirGetters() throws JMSException {
        FakeMessage message = new FakeMessage();
        message.setJMSPriority(7);
        message.setJMSMessageID("ID:42");
        message.setJMSTimestamp(1_790_000_000_000L);
        message.setJMSCorrelationID("order-9");
        message.setJMSType("car");
        assertTrue(selector("JMSPriority > 4 AND JMSMessageID = 'ID:42' AND JMSTimestamp = 1790000000000"
                + " AND JMSCorrelationID LIKE 'order-%' AND JMSType IN ('car', 'truck')").matches(message));
        assertFalse(selector("JMSPriority BETWEEN 0 AND 4").matches(message));
    }

    @Test
    void unsetStringHeaderFieldsAreNull() throws JMSException {
        FakeMessage message = new FakeMessage();
        assertTrue(selector("JMSMessageID IS NULL AND JMSCorrelationID IS NULL AND JMSType IS NULL").matches(message));
        assertFalse(selector("JMSType = 'car' OR JMSType <> 'car'").matches(message));
    }

    @Test
    void propertiesKeepTheTypeTheyWereSetWith() throws JMSException {
        FakeMessage message = new FakeMessage();
        message.setBooleanProperty("urgent", true);
        message.setByteProperty("b", (byte) 1);
        message.setShortProperty("s", (short) 2);
        message.setIntProperty("i", 3);
        message.setLongProperty("l", 4L);
        message.setFloatProperty("f", 5.5f);
        message.setDoubleProperty("d", 6.25);
        message.setStringProperty("color", "blue");
        assertTrue(selector("urgent AND b + s + i + l = 10 AND f * 2 = 11 AND d = 6.25 AND color = 'blue'")
                .matches(message));
        message.setStringProperty("weight", "3000");
        assertFalse(selector("weight > 2500").matches(message));
        assertTrue(selector("weight = '3000'").matches(message));
    }

    @Test
    void anAbsentPropertyIsNull() throws JMSException {
        FakeMessage message = new FakeMessage();
        assertTrue(selector("missing IS NULL").matches(message));
        assertFalse(selector("missing = 1").matches(message));
        assertFalse(selector("NOT (missing = 1)").matches(message));
    }

    @Test
    void headerFieldsAreNotReadAsProperties() throws JMSException {
        FakeMessage message = new FakeMessage();
        message.setObjectProperty("JMSType", "from-a-property");
        message.setJMSType("from-the-header");
        assertTrue(selector("JMSType = 'from-the-header'").matches(message));
        assertEquals(0, message.propertyReads.get());
    }

    @Test
    void onlyTheIdentifiersTheSelectorNeedsAreRead() throws JMSException {
        FakeMessage message = new FakeMessage();
        message.setIntProperty("a", 1);
        message.setIntProperty("b", 2);
        assertFalse(selector("a = 2 AND b = 2").matches(message));
        assertEquals(1, message.propertyReads.get());
    }

    @Test
    void aFailureToReadAPropertyIsThrownAsItIs() {
        JMSException failure = new MessageFormatException("property store unreadable");
        FakeMessage message = new FakeMessage().failPropertyReadsWith(failure);
        JMSException thrown = assertThrows(JMSException.class, () -> selector("a = 1").matches(message));
        assertSame(failure, thrown);
    }

    @Test
    void aSelectorThatMatchesAllReadsNothing() throws JMSException {
        FakeMessage message = new FakeMessage().failPropertyReadsWith(new JMSException("must not be read"));
        assertTrue(selector("").matches(message));
        assertTrue(selector(null).matches(message));
    }
}
