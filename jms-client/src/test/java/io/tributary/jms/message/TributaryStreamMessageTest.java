package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryStreamMessageTest {

    @Test
    void fieldsReadBackInOrderAfterReset() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        m.writeBoolean(true);
        m.writeByte((byte) 1);
        m.writeShort((short) 2);
        m.writeChar('c');
        m.writeInt(3);
        m.writeLong(4);
        m.writeFloat(5.5f);
        m.writeDouble(6.5);
        m.writeString("s");
        m.writeBytes(new byte[] {7});
        m.writeBytes(new byte[] {0, 8, 9, 0}, 1, 2);
        m.writeObject(null);
        m.reset();

        assertTrue(m.readBoolean());
        assertEquals(1, m.readByte());
        assertEquals(2, m.readShort());
        assertEquals('c', m.readChar());
        assertEquals(3, m.readInt());
        assertEquals(4, m.readLong());
        assertEquals(5.5f, m.readFloat());
        assertEquals(6.5, m.readDouble());
        assertEquals("s", m.readString());
        assertArrayEquals(new byte[] {7}, (byte[]) m.readObject());
        assertArrayEquals(new byte[] {8, 9}, (byte[]) m.readObject());
        assertNull(m.readObject());
        assertThrows(MessageEOFException.class, m::readObject);
    }

    @Test
    void aNewMessageIsWriteOnlyAndAResetOneReadOnlyUntilClearBody() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        assertThrows(MessageNotReadableException.class, m::readInt);
        assertThrows(MessageNotReadableException.class, () -> m.readBytes(new byte[1]));
        m.writeInt(1);
        m.reset();
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(2));
        m.clearBody();
        assertThrows(MessageNotReadableException.class, m::readObject);
        m.writeInt(2);
        m.reset();
        assertEquals(2, m.readInt());
        assertThrows(MessageEOFException.class, m::readInt);
    }

    @Test
    void writtenArraysAreCopied() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        byte[] bytes = {1};
        m.writeBytes(bytes);
        bytes[0] = 2;
        m.reset();
        byte[] read = (byte[]) m.readObject();
        assertArrayEquals(new byte[] {1}, read);
    }

    @Test
    void aNumberFormatFailureLeavesThePointerOnTheField() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        m.writeString("not a number");
        m.reset();
        assertThrows(NumberFormatException.class, m::readInt);
        assertEquals("not a number", m.readString());
    }

    /** §3.11.3: null reads as valueOf((String) null); char has no String conversion, so NullPointerException. */
    @Test
    void aNullFieldReadsAsValueOfNull() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        for (int i = 0; i < 4; i++) {
            m.writeObject(null);
        }
        m.reset();
        assertThrows(NullPointerException.class, m::readChar);
        assertThrows(NumberFormatException.class, m::readInt);
        assertThrows(NullPointerException.class, m::readDouble);
        assertFalse(m.readBoolean());
        assertNull(m.readString());
        assertEquals(-1, m.readBytes(new byte[4]));
        assertNull(m.readObject());
    }

    @Test
    void readBytesReadsAFieldInChunksEndingWithAShortReadOrMinusOne() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        m.writeBytes(new byte[] {1, 2, 3, 4, 5});
        m.writeBytes(new byte[] {6, 7, 8, 9});
        m.writeInt(10);
        m.reset();
        byte[] buffer = new byte[2];

        assertEquals(2, m.readBytes(buffer));
        assertArrayEquals(new byte[] {1, 2}, buffer);
        assertEquals(2, m.readBytes(buffer));
        assertArrayEquals(new byte[] {3, 4}, buffer);
        assertEquals(1, m.readBytes(buffer));
        assertEquals(5, buffer[0]);

        // A field whose length is a multiple of the buffer ends with a -1 read.
        assertEquals(2, m.readBytes(buffer));
        assertEquals(2, m.readBytes(buffer));
        assertArrayEquals(new byte[] {8, 9}, buffer);
        assertEquals(-1, m.readBytes(buffer));

        assertEquals(10, m.readInt());
    }

    @Test
    void anEmptyByteArrayFieldReadsAsZero() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        m.writeBytes(new byte[0]);
        m.writeInt(1);
        m.reset();
        assertEquals(0, m.readBytes(new byte[4]));
        assertEquals(1, m.readInt());
    }

    @Test
    void anotherReadDuringAByteArrayReadIsAFormatErrorUntilTheFieldIsFinished() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        m.writeBytes(new byte[] {1, 2, 3});
        m.writeString("next");
        m.reset();
        byte[] buffer = new byte[2];
        assertEquals(2, m.readBytes(buffer));

        MessageFormatException e = assertThrows(MessageFormatException.class, m::readString);
        assertTrue(e.getMessage().contains("readBytes"), e.getMessage());
        assertThrows(MessageFormatException.class, m::readObject);

        assertEquals(1, m.readBytes(buffer));
        assertEquals(3, buffer[0]);
        assertEquals("next", m.readString());
    }

    @Test
    void readBytesOfAnotherTypeIsAFormatErrorAndLeavesThePointer() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        m.writeString("s");
        m.reset();
        assertThrows(MessageFormatException.class, () -> m.readBytes(new byte[1]));
        assertEquals("s", m.readString());
    }

    @Test
    void writeObjectRefusesOtherClasses() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        assertThrows(MessageFormatException.class, () -> m.writeObject(new ArrayList<>()));
        assertThrows(MessageFormatException.class, () -> m.writeObject(Map.of()));
        m.writeObject('x');
        m.reset();
        assertEquals('x', m.readChar());
    }

    @Test
    void getBodyIsRefusedAndIsBodyAssignableToIsFalse() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        assertThrows(MessageFormatException.class, () -> m.getBody(Object.class));
        assertFalse(m.isBodyAssignableTo(Object.class));
        m.writeInt(1);
        assertThrows(MessageFormatException.class, () -> m.getBody(Object.class));
    }

    @Test
    void aReceivedMessageIsReadFromItsFirstField() throws JMSException {
        TributaryStreamMessage m = new TributaryStreamMessage();
        m.fields().add(5);
        m.markReceived();
        assertEquals(5, m.readInt());
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(1));
    }
}
