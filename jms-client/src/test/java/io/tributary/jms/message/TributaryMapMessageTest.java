package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryMapMessageTest {

    @Test
    void everyValueTypeReadsBackAndNamesAreListed() throws JMSException {
        TributaryMapMessage m = new TributaryMapMessage();
        m.setBoolean("bool", true);
        m.setByte("byte", (byte) 1);
        m.setShort("short", (short) 2);
        m.setChar("char", 'c');
        m.setInt("int", 3);
        m.setLong("long", 4);
        m.setFloat("float", 5.5f);
        m.setDouble("double", 6.5);
        m.setString("string", "s");
        m.setBytes("bytes", new byte[] {7});
        m.setBytes("slice", new byte[] {0, 8, 9, 0}, 1, 2);
        m.setObject("object", 10L);

        assertTrue(m.getBoolean("bool"));
        assertEquals(1, m.getByte("byte"));
        assertEquals(2, m.getShort("short"));
        assertEquals('c', m.getChar("char"));
        assertEquals(3, m.getInt("int"));
        assertEquals(4, m.getLong("long"));
        assertEquals(5.5f, m.getFloat("float"));
        assertEquals(6.5, m.getDouble("double"));
        assertEquals("s", m.getString("string"));
        assertArrayEquals(new byte[] {7}, m.getBytes("bytes"));
        assertArrayEquals(new byte[] {8, 9}, m.getBytes("slice"));
        assertEquals(10L, m.getObject("object"));
        assertEquals(List.of("bool", "byte", "short", "char", "int", "long", "float", "double", "string", "bytes",
                "slice", "object"), Collections.list(m.getMapNames()));
        assertTrue(m.itemExists("char"));
        assertFalse(m.itemExists("absent"));
    }

    @Test
    void byteArraysAreCopiedInAndOut() throws JMSException {
        TributaryMapMessage m = new TributaryMapMessage();
        byte[] bytes = {1};
        m.setBytes("b", bytes);
        bytes[0] = 2;
        m.getBytes("b")[0] = 3;
        ((byte[]) m.getObject("b"))[0] = 4;
        assertArrayEquals(new byte[] {1}, m.getBytes("b"));
    }

    /** §3.11.3: a name not set reads as null; char has no String conversion, so NullPointerException. */
    @Test
    void aMissingOrNullEntryReadsAsValueOfNull() throws JMSException {
        TributaryMapMessage m = new TributaryMapMessage();
        m.setString("null", null);
        for (String name : List.of("null", "absent")) {
            assertNull(m.getString(name));
            assertNull(m.getBytes(name));
            assertNull(m.getObject(name));
            assertFalse(m.getBoolean(name));
            assertThrows(NumberFormatException.class, () -> m.getLong(name));
            assertThrows(NullPointerException.class, () -> m.getFloat(name));
            assertThrows(NullPointerException.class, () -> m.getChar(name));
        }
        assertTrue(m.itemExists("null"));
    }

    @Test
    void namesMustBeNonEmpty() {
        TributaryMapMessage m = new TributaryMapMessage();
        assertThrows(IllegalArgumentException.class, () -> m.setInt(null, 1));
        assertThrows(IllegalArgumentException.class, () -> m.setInt("", 1));
        assertThrows(IllegalArgumentException.class, () -> m.setObject("", 1));
    }

    @Test
    void setObjectRefusesOtherClasses() {
        TributaryMapMessage m = new TributaryMapMessage();
        MessageFormatException e =
                assertThrows(MessageFormatException.class, () -> m.setObject("list", new ArrayList<>()));
        assertTrue(e.getMessage().contains("java.util.ArrayList"), e.getMessage());
        assertFalse(m.itemExists("list"));
    }

    @Test
    void aReceivedMapIsReadOnlyUntilClearBody() throws JMSException {
        TributaryMapMessage m = new TributaryMapMessage();
        m.setInt("a", 1);
        m.markReceived();
        assertThrows(MessageNotWriteableException.class, () -> m.setInt("b", 2));
        assertThrows(MessageNotWriteableException.class, () -> m.setObject("b", 2));
        assertEquals(1, m.getInt("a"));
        m.clearBody();
        assertFalse(m.getMapNames().hasMoreElements());
        m.setInt("b", 2);
    }

    @Test
    void getBodyIsAMapCopyAndAnEmptyMapHasNoBody() throws JMSException {
        TributaryMapMessage m = new TributaryMapMessage();
        assertNull(m.getBody(String.class));
        assertTrue(m.isBodyAssignableTo(String.class));

        m.setInt("a", 1);
        m.setBytes("b", new byte[] {2});
        @SuppressWarnings("unchecked")
        Map<String, Object> body = m.getBody(Map.class);
        assertEquals(1, body.get("a"));
        assertArrayEquals(new byte[] {2}, (byte[]) body.get("b"));
        body.put("a", 5);
        assertEquals(1, m.getInt("a"));
        assertTrue(m.isBodyAssignableTo(Map.class));
        assertTrue(m.isBodyAssignableTo(HashMap.class));
        assertTrue(m.isBodyAssignableTo(Object.class));
        assertFalse(m.isBodyAssignableTo(String.class));
        assertThrows(MessageFormatException.class, () -> m.getBody(String.class));
    }
}
