package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryTextMessageTest {

    @Test
    void getBodyAcceptsStringAndItsSupertypes() throws JMSException {
        TributaryTextMessage m = new TributaryTextMessage("hello");
        assertEquals("hello", m.getBody(String.class));
        assertEquals("hello", m.getBody(CharSequence.class));
        assertEquals("hello", m.getBody(Object.class));
        assertTrue(m.isBodyAssignableTo(Comparable.class));
        assertFalse(m.isBodyAssignableTo(Integer.class));
        MessageFormatException e = assertThrows(MessageFormatException.class, () -> m.getBody(Integer.class));
        assertTrue(e.getMessage().contains("java.lang.Integer"), e.getMessage());
    }

    @Test
    void aNullTextIsNoBody() throws JMSException {
        TributaryTextMessage m = new TributaryTextMessage();
        assertNull(m.getText());
        assertNull(m.getBody(Integer.class));
        assertTrue(m.isBodyAssignableTo(Integer.class));
    }

    @Test
    void aReceivedTextIsReadOnlyUntilClearBody() throws JMSException {
        TributaryTextMessage m = new TributaryTextMessage("a");
        m.markReceived();
        MessageNotWriteableException e = assertThrows(MessageNotWriteableException.class, () -> m.setText("b"));
        assertTrue(e.getMessage().contains("clearBody"), e.getMessage());
        assertEquals("a", m.getText());
        m.clearBody();
        assertNull(m.getText());
        m.setText("b");
        assertEquals("b", m.getText());
    }

    @Test
    void clearBodyLeavesPropertiesAndClearPropertiesLeavesTheBody() throws JMSException {
        TributaryTextMessage m = new TributaryTextMessage("a");
        m.setIntProperty("p", 1);
        m.clearBody();
        assertEquals(1, m.getIntProperty("p"));
        m.setText("b");
        m.clearProperties();
        assertEquals("b", m.getText());
    }
}
