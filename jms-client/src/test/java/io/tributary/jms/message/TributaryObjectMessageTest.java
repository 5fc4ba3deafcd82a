package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryObjectMessageTest {

    /** An application class: not on the default allow-list. */
    record Order(String id, int quantity) implements Serializable {
    }

    /** Holds an application class inside an allowed collection. */
    static final class NotSerializable {
    }

    @Test
    void theDefaultListReadsJdkValueTypesCollectionsAndDates() throws JMSException {
        Map<String, Object> value = new HashMap<>();
        value.put("list", new ArrayList<>(List.of(1, 2L, "three")));
        value.put("sorted", new TreeMap<>(Map.of("a", 1.5)));
        value.put("price", new BigDecimal("12.34"));
        value.put("date", LocalDate.of(2024, 2, 29));
        value.put("day", DayOfWeek.MONDAY);
        value.put("chars", new char[] {'a'});
        value.put("strings", new String[] {"s"});
        value.put("immutable", List.of("x"));

        TributaryObjectMessage m = new TributaryObjectMessage();
        m.setObject((Serializable) value);
        assertEquals(value.keySet(), ((Map<?, ?>) m.getObject()).keySet());
        Map<?, ?> copy = (Map<?, ?>) m.getObject();
        assertEquals(value.get("price"), copy.get("price"));
        assertEquals(value.get("date"), copy.get("date"));
        assertEquals(DayOfWeek.MONDAY, copy.get("day"));
        assertArrayEquals(new String[] {"s"}, (String[]) copy.get("strings"));
    }

    @Test
    void setObjectCopiesTheObjectAndGetObjectReturnsAFreshCopy() throws JMSException {
        ArrayList<String> list = new ArrayList<>(List.of("a"));
        TributaryObjectMessage m = new TributaryObjectMessage();
        m.setObject(list);
        list.add("b");
        assertEquals(List.of("a"), m.getObject());
        assertNotSame(m.getObject(), m.getObject());
    }

    @Test
    void anApplicationClassIsRefusedByDefaultWithAMessageNamingItAndTheFix() throws JMSException {
        TributaryObjectMessage m = new TributaryObjectMessage();
        m.setObject(new Order("o-1", 2));
        MessageFormatException e = assertThrows(MessageFormatException.class, m::getObject);
        assertTrue(e.getMessage().contains(Order.class.getName()), e.getMessage());
        assertTrue(e.getMessage().contains("allow-list"), e.getMessage());
        assertTrue(e.getMessage().contains("io.tributary.jms.message"), e.getMessage());
        assertTrue(e.getMessage().contains("'*'"), e.getMessage());
    }

    @Test
    void aRefusedClassInsideAnAllowedCollectionIsStillRefused() throws JMSException {
        TributaryObjectMessage m = new TributaryObjectMessage();
        m.setObject(new ArrayList<>(List.of(new Order("o-1", 2))));
        MessageFormatException e = assertThrows(MessageFormatException.class, m::getObject);
        assertTrue(e.getMessage().contains(Order.class.getName()), e.getMessage());
    }

    @Test
    void aClassIsAllowedByItsPackageByItsNameOrByStar() throws JMSException {
        for (String list : List.of("io.tributary.jms", "io.tributary.jms.message.*",
                "io.tributary.jms.message.TributaryObjectMessageTest", Order.class.getName(), "*")) {
            TributaryObjectMessage m = new TributaryObjectMessage();
            m.setAllowList(ObjectMessageAllowList.parse(list));
            m.setObject(new Order("o-1", 2));
            assertEquals(new Order("o-1", 2), m.getObject(), list);
        }
    }

    @Test
    void aConfiguredListReplacesTheDefaultPackages() throws JMSException {
        TributaryObjectMessage m = new TributaryObjectMessage();
        m.setAllowList(ObjectMessageAllowList.parse("com.example"));
        m.setObject("always allowed");
        assertEquals("always allowed", m.getObject());
        m.setObject(new ArrayList<>(List.of(1)));
        MessageFormatException e = assertThrows(MessageFormatException.class, m::getObject);
        assertTrue(e.getMessage().contains("java.util.ArrayList"), e.getMessage());
    }

    @Test
    void getBodyDeserializesAndIsBodyAssignableToIsFalseWhenRefused() throws JMSException {
        TributaryObjectMessage m = new TributaryObjectMessage();
        assertNull(m.getBody(Integer.class));
        assertTrue(m.isBodyAssignableTo(Integer.class));

        m.setObject(new ArrayList<>(List.of(1)));
        assertEquals(List.of(1), m.getBody(List.class));
        assertTrue(m.isBodyAssignableTo(Serializable.class));
        assertFalse(m.isBodyAssignableTo(String.class));
        assertThrows(MessageFormatException.class, () -> m.getBody(String.class));

        m.setObject(new Order("o-1", 2));
        assertFalse(m.isBodyAssignableTo(Order.class));
        assertThrows(MessageFormatException.class, () -> m.getBody(Order.class));
    }

    @Test
    void anObjectThatCannotBeSerializedIsAFormatError() {
        TributaryObjectMessage m = new TributaryObjectMessage();
        ArrayList<Object> list = new ArrayList<>(List.of(new NotSerializable()));
        MessageFormatException e = assertThrows(MessageFormatException.class, () -> m.setObject(list));
        assertTrue(e.getMessage().contains("NotSerializable"), e.getMessage());
    }

    @Test
    void bytesThatAreNotASerializedObjectAreAFormatError() {
        TributaryObjectMessage m = new TributaryObjectMessage();
        m.loadSerialized(new byte[] {1, 2, 3});
        assertThrows(MessageFormatException.class, m::getObject);
        assertFalse(m.isBodyAssignableTo(Object.class));
    }

    @Test
    void aReceivedObjectIsReadOnlyUntilClearBody() throws JMSException {
        TributaryObjectMessage m = new TributaryObjectMessage();
        m.setObject("a");
        m.markReceived();
        assertThrows(MessageNotWriteableException.class, () -> m.setObject("b"));
        m.clearBody();
        assertNull(m.getObject());
        m.setObject("b");
        assertEquals("b", m.getObject());
    }
}
