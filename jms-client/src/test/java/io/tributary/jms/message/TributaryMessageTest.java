package io.tributary.jms.message;

import io.tributary.jms.TributaryQueue;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryMessageTest {

    @Test
    void aNewMessageIsPersistentWithDefaultPriorityAndNoHeaders() {
        TributaryMessage m = new TributaryMessage();
        assertEquals(DeliveryMode.PERSISTENT, m.getJMSDeliveryMode());
        assertEquals(Message.DEFAULT_PRIORITY, m.getJMSPriority());
        assertNull(m.getJMSMessageID());
        assertNull(m.getJMSCorrelationID());
        assertNull(m.getJMSCorrelationIDAsBytes());
        assertNull(m.getJMSReplyTo());
        assertNull(m.getJMSDestination());
        assertNull(m.getJMSType());
        assertEquals(0, m.getJMSTimestamp());
        assertEquals(0, m.getJMSExpiration());
        assertEquals(0, m.getJMSDeliveryTime());
        assertFalse(m.getJMSRedelivered());
        assertFalse(m.getPropertyNames().hasMoreElements());
    }

    @Test
    void everyHeaderReadsBackWhatWasSet() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setJMSMessageID("ID:1");
        m.setJMSTimestamp(11);
        m.setJMSCorrelationID("c-1");
        m.setJMSReplyTo(TributaryQueue.of("replies"));
        m.setJMSDestination(TributaryQueue.of("orders"));
        m.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        m.setJMSRedelivered(true);
        m.setJMSType("order");
        m.setJMSExpiration(12);
        m.setJMSDeliveryTime(13);
        m.setJMSPriority(9);

        assertEquals("ID:1", m.getJMSMessageID());
        assertEquals(11, m.getJMSTimestamp());
        assertEquals("c-1", m.getJMSCorrelationID());
        assertEquals(TributaryQueue.of("replies"), m.getJMSReplyTo());
        assertEquals(TributaryQueue.of("orders"), m.getJMSDestination());
        assertEquals(DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
        assertTrue(m.getJMSRedelivered());
        assertEquals("order", m.getJMSType());
        assertEquals(12, m.getJMSExpiration());
        assertEquals(13, m.getJMSDeliveryTime());
        assertEquals(9, m.getJMSPriority());
    }

    @Test
    void correlationIdAsBytesIsCopiedInAndOutAndAStringOneReadsAsUtf8Bytes() {
        TributaryMessage m = new TributaryMessage();
        byte[] id = {1, 2, (byte) 0xFF};
        m.setJMSCorrelationIDAsBytes(id);
        id[0] = 42;
        assertArrayEquals(new byte[] {1, 2, (byte) 0xFF}, m.getJMSCorrelationIDAsBytes());
        m.getJMSCorrelationIDAsBytes()[1] = 42;
        assertArrayEquals(new byte[] {1, 2, (byte) 0xFF}, m.getJMSCorrelationIDAsBytes());

        m.setJMSCorrelationID("żółw");
        assertArrayEquals("żółw".getBytes(StandardCharsets.UTF_8), m.getJMSCorrelationIDAsBytes());
        assertEquals("żółw", m.getJMSCorrelationID());
    }

    @Test
    void everyPropertyTypeReadsBackAsSetAndAsObject() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setBooleanProperty("b", true);
        m.setByteProperty("y", (byte) -1);
        m.setShortProperty("s", (short) 300);
        m.setIntProperty("i", 70000);
        m.setLongProperty("l", 1L << 40);
        m.setFloatProperty("f", 0.25f);
        m.setDoubleProperty("d", 1e300);
        m.setStringProperty("t", "text");

        assertTrue(m.getBooleanProperty("b"));
        assertEquals(-1, m.getByteProperty("y"));
        assertEquals(300, m.getShortProperty("s"));
        assertEquals(70000, m.getIntProperty("i"));
        assertEquals(1L << 40, m.getLongProperty("l"));
        assertEquals(0.25f, m.getFloatProperty("f"));
        assertEquals(1e300, m.getDoubleProperty("d"));
        assertEquals("text", m.getStringProperty("t"));
        assertEquals(Byte.valueOf((byte) -1), m.getObjectProperty("y"));
        assertEquals(Short.valueOf((short) 300), m.getObjectProperty("s"));
        assertEquals(Long.valueOf(1L << 40), m.getObjectProperty("l"));
        assertEquals(List.of("b", "y", "s", "i", "l", "f", "d", "t"), names(m));
    }

    @Test
    void aStringPropertyReadsAsNumberOrBooleanThroughValueOf() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setStringProperty("n", "12");
        m.setStringProperty("yes", "TRUE");
        m.setStringProperty("junk", "twelve");
        assertEquals(12, m.getIntProperty("n"));
        assertEquals(12L, m.getLongProperty("n"));
        assertEquals(12.0, m.getDoubleProperty("n"));
        assertTrue(m.getBooleanProperty("yes"));
        assertFalse(m.getBooleanProperty("junk"));
        NumberFormatException e = assertThrows(NumberFormatException.class, () -> m.getIntProperty("junk"));
        assertTrue(e.getMessage().contains("junk"), e.getMessage());
        m.setStringProperty("big", "300");
        assertThrows(NumberFormatException.class, () -> m.getByteProperty("big"));
    }

    @Test
    void aBooleanPropertyIsNotAnIntAndAnIntIsNotAByte() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setBooleanProperty("flag", true);
        m.setIntProperty("count", 1);
        MessageFormatException e = assertThrows(MessageFormatException.class, () -> m.getIntProperty("flag"));
        assertTrue(e.getMessage().contains("'flag' is a boolean and cannot be read as int"), e.getMessage());
        assertThrows(MessageFormatException.class, () -> m.getByteProperty("count"));
    }

    /** §3.5.8 and Message: a missing property is null, read as a primitive through valueOf((String) null). */
    @Test
    void aMissingPropertyReadsAsValueOfNull() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        assertFalse(m.propertyExists("absent"));
        assertNull(m.getStringProperty("absent"));
        assertNull(m.getObjectProperty("absent"));
        assertFalse(m.getBooleanProperty("absent"));
        assertThrows(NumberFormatException.class, () -> m.getByteProperty("absent"));
        assertThrows(NumberFormatException.class, () -> m.getShortProperty("absent"));
        assertThrows(NumberFormatException.class, () -> m.getIntProperty("absent"));
        assertThrows(NumberFormatException.class, () -> m.getLongProperty("absent"));
        assertThrows(NullPointerException.class, () -> m.getFloatProperty("absent"));
        assertThrows(NullPointerException.class, () -> m.getDoubleProperty("absent"));
    }

    @Test
    void aNullPropertyValueExistsAndReadsAsNull() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setStringProperty("s", null);
        m.setObjectProperty("o", null);
        assertTrue(m.propertyExists("s"));
        assertTrue(m.propertyExists("o"));
        assertNull(m.getStringProperty("s"));
        assertThrows(NumberFormatException.class, () -> m.getIntProperty("o"));
    }

    @Test
    void setObjectPropertyRefusesClassesThatAreNotPropertyTypes() {
        TributaryMessage m = new TributaryMessage();
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("c", 'c'));
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("a", new byte[1]));
        MessageFormatException e =
                assertThrows(MessageFormatException.class, () -> m.setObjectProperty("l", new ArrayList<>()));
        assertTrue(e.getMessage().contains("java.util.ArrayList"), e.getMessage());
        assertFalse(m.propertyExists("l"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE",
            "null", "Between", "escape"})
    void selectorReservedWordsAreNotPropertyNames(String name) {
        TributaryMessage m = new TributaryMessage();
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> m.setStringProperty(name, "x"));
        assertTrue(e.getMessage().contains("reserved word"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1abc", "a-b", "a b", "a.b", "JMSPriority", "JMSCustom"})
    void namesThatAreNotSelectorIdentifiersAreRefused(String name) {
        assertThrows(IllegalArgumentException.class, () -> new TributaryMessage().setIntProperty(name, 1));
    }

    @Test
    void aNullPropertyNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TributaryMessage().setIntProperty(null, 1));
        assertThrows(IllegalArgumentException.class, () -> new TributaryMessage().setObjectProperty(null, 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"_x", "$y", "orderId", "größe", "JMSXGroupID", "JMS_Other_Flag", "Is_valid", "inside"})
    void javaIdentifiersAreAcceptedAsPropertyNames(String name) throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setStringProperty(name, "v");
        assertEquals("v", m.getStringProperty(name));
    }

    @Test
    void applicationsMaySetTheGroupAndIdentityJmsxPropertiesWithTheirTypes() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setStringProperty("JMSXGroupID", "g");
        m.setIntProperty("JMSXGroupSeq", 3);
        m.setStringProperty("JMSXUserID", "alice");
        m.setStringProperty("JMSXAppID", "shop");
        assertEquals("g", m.getStringProperty("JMSXGroupID"));
        assertEquals(3, m.getIntProperty("JMSXGroupSeq"));

        assertThrows(MessageFormatException.class, () -> m.setIntProperty("JMSXGroupID", 1));
        assertThrows(MessageFormatException.class, () -> m.setStringProperty("JMSXGroupSeq", "1"));
        assertThrows(MessageFormatException.class, () -> m.setLongProperty("JMSXGroupSeq", 1));
    }

    @Test
    void providerPropertiesAreReadOnlyToApplicationsAndUnknownJmsxNamesAreRefused() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        MessageNotWriteableException e = assertThrows(MessageNotWriteableException.class,
                () -> m.setIntProperty("JMSXDeliveryCount", 1));
        assertTrue(e.getMessage().contains("JMSXDeliveryCount"), e.getMessage());
        assertThrows(MessageNotWriteableException.class, () -> m.setLongProperty("JMS_Tributary_Offset", 1));
        assertThrows(IllegalArgumentException.class, () -> m.setStringProperty("JMSXConsumerTXID", "t"));
        assertThrows(IllegalArgumentException.class, () -> m.setStringProperty("JMSXWhatever", "t"));

        m.setDeliveryCount(2);
        assertEquals(2, m.getIntProperty("JMSXDeliveryCount"));
        assertEquals(List.of("JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq"),
                TributaryMessage.supportedJmsxPropertyNames());
    }

    @Test
    void receivedPropertiesAreReadOnlyUntilClearProperties() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setStringProperty("colour", "red");
        m.markReceived();

        MessageNotWriteableException e =
                assertThrows(MessageNotWriteableException.class, () -> m.setStringProperty("colour", "blue"));
        assertTrue(e.getMessage().contains("clearProperties"), e.getMessage());
        assertEquals("red", m.getStringProperty("colour"));
        m.setDeliveryCount(3);
        m.setJMSRedelivered(true);

        m.clearProperties();
        assertFalse(m.propertyExists("colour"));
        assertFalse(m.getPropertyNames().hasMoreElements());
        m.setStringProperty("colour", "blue");
        assertEquals("blue", m.getStringProperty("colour"));
        assertTrue(m.getJMSRedelivered());
    }

    @Test
    void getPropertyNamesIsASnapshot() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setIntProperty("a", 1);
        var names = m.getPropertyNames();
        m.setIntProperty("b", 2);
        assertEquals("a", names.nextElement());
        assertFalse(names.hasMoreElements());
    }

    @Test
    void aMessageWithoutBodyReturnsNullForAnyBodyType() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        assertNull(m.getBody(String.class));
        assertNull(m.getBody(Integer.class));
        assertTrue(m.isBodyAssignableTo(byte[].class));
        m.clearBody();
        assertNull(m.getBody(Object.class));
    }

    @Test
    void acknowledgeCallsTheSessionsAcknowledgerAndIsANoOpWithoutOne() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.acknowledge();
        AtomicInteger calls = new AtomicInteger();
        m.setAcknowledger(calls::incrementAndGet);
        m.acknowledge();
        m.acknowledge();
        assertEquals(2, calls.get());

        m.setAcknowledger(() -> {
            throw new jakarta.jms.IllegalStateException("session closed");
        });
        assertThrows(jakarta.jms.IllegalStateException.class, m::acknowledge);
    }

    private static List<String> names(Message m) throws JMSException {
        List<String> names = new ArrayList<>();
        Enumeration<?> e = m.getPropertyNames();
        while (e.hasMoreElements()) {
            names.add((String) e.nextElement());
        }
        return names;
    }
}
