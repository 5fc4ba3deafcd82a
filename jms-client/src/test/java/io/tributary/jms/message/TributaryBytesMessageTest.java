package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TributaryBytesMessageTest {

    @Test
    void everyWriteReadsBackAfterResetInDataOutputFormat() throws Exception {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeBoolean(true);
        m.writeByte((byte) -2);
        m.writeShort((short) -3);
        m.writeChar('ż');
        m.writeInt(-4);
        m.writeLong(-5L);
        m.writeFloat(6.5f);
        m.writeDouble(-7.25);
        m.writeUTF("żółw");
        m.writeBytes(new byte[] {1, 2, 3});
        m.writeBytes(new byte[] {9, 4, 5, 9}, 1, 2);
        m.reset();

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(expected);
        out.writeBoolean(true);
        out.writeByte(-2);
        out.writeShort(-3);
        out.writeChar('ż');
        out.writeInt(-4);
        out.writeLong(-5L);
        out.writeFloat(6.5f);
        out.writeDouble(-7.25);
        out.writeUTF("żółw");
        out.write(new byte[] {1, 2, 3, 4, 5});
        assertEquals(expected.size(), m.getBodyLength());
        assertArrayEquals(expected.toByteArray(), m.bodyBytes());

        assertTrue(m.readBoolean());
        assertEquals(-2, m.readByte());
        assertEquals(-3, m.readShort());
        assertEquals('ż', m.readChar());
        assertEquals(-4, m.readInt());
        assertEquals(-5L, m.readLong());
        assertEquals(6.5f, m.readFloat());
        assertEquals(-7.25, m.readDouble());
        assertEquals("żółw", m.readUTF());
        byte[] rest = new byte[10];
        assertEquals(5, m.readBytes(rest));
        assertEquals(-1, m.readBytes(rest));
    }

    @Test
    void unsignedReadsSeeTheSameBytesAsUnsigned() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeByte((byte) -1);
        m.writeShort((short) -1);
        m.reset();
        assertEquals(255, m.readUnsignedByte());
        assertEquals(65535, m.readUnsignedShort());
    }

    @Test
    void aNewMessageIsWriteOnlyAndAResetOneReadOnly() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        MessageNotReadableException e = assertThrows(MessageNotReadableException.class, m::readInt);
        assertTrue(e.getMessage().contains("reset()"), e.getMessage());
        assertThrows(MessageNotReadableException.class, m::getBodyLength);
        assertThrows(MessageNotReadableException.class, () -> m.readBytes(new byte[1]));
        m.writeInt(1);
        m.reset();
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(2));
        assertThrows(MessageNotWriteableException.class, () -> m.writeObject("x"));
        assertEquals(1, m.readInt());
    }

    @Test
    void resetRewindsAReadOnlyMessage() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeInt(7);
        m.reset();
        assertEquals(7, m.readInt());
        m.reset();
        assertEquals(7, m.readInt());
    }

    @Test
    void clearBodyEmptiesAndReturnsToWriteMode() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeInt(7);
        m.reset();
        m.clearBody();
        assertThrows(MessageNotReadableException.class, m::readInt);
        m.writeByte((byte) 1);
        m.reset();
        assertEquals(1, m.getBodyLength());
    }

    @Test
    void readingPastTheEndIsMessageEOFAndLeavesThePositionAlone() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeShort((short) 5);
        m.reset();
        MessageEOFException e = assertThrows(MessageEOFException.class, m::readInt);
        assertTrue(e.getMessage().contains("2 byte(s) left"), e.getMessage());
        assertEquals(5, m.readShort());
        assertThrows(MessageEOFException.class, m::readByte);
        assertThrows(MessageEOFException.class, m::readUTF);
    }

    @Test
    void aTruncatedUtfStringIsMessageEOFAndMalformedOneMessageFormatWithoutMovingThePosition() throws JMSException {
        TributaryBytesMessage truncated = new TributaryBytesMessage();
        truncated.writeShort((short) 10);
        truncated.writeByte((byte) 'a');
        truncated.reset();
        assertThrows(MessageEOFException.class, truncated::readUTF);
        assertEquals(10, truncated.readShort());

        TributaryBytesMessage malformed = new TributaryBytesMessage();
        malformed.writeShort((short) 1);
        malformed.writeByte((byte) 0xC0);
        malformed.reset();
        assertThrows(MessageFormatException.class, malformed::readUTF);
        assertEquals(1, malformed.readShort());
    }

    @Test
    void readBytesFillsTheBufferThenReturnsTheRemainderThenMinusOne() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeBytes(new byte[] {1, 2, 3, 4, 5, 6, 7});
        m.reset();
        byte[] buffer = new byte[3];
        assertEquals(3, m.readBytes(buffer));
        assertArrayEquals(new byte[] {1, 2, 3}, buffer);
        assertEquals(3, m.readBytes(buffer));
        assertArrayEquals(new byte[] {4, 5, 6}, buffer);
        assertEquals(1, m.readBytes(buffer));
        assertEquals(7, buffer[0]);
        assertEquals(-1, m.readBytes(buffer));
    }

    @Test
    void readBytesWithALengthReadsAtMostThatMany() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeBytes(new byte[] {1, 2, 3, 4});
        m.reset();
        byte[] buffer = new byte[4];
        assertEquals(2, m.readBytes(buffer, 2));
        assertArrayEquals(new byte[] {1, 2, 0, 0}, buffer);
        assertThrows(IndexOutOfBoundsException.class, () -> m.readBytes(buffer, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> m.readBytes(buffer, -1));
        assertEquals(2, m.readBytes(buffer, 4));
    }

    @Test
    void writeObjectTakesBoxedPrimitivesStringsAndBytesOnly() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeObject(1);
        m.writeObject('c');
        m.writeObject("s");
        m.writeObject(new byte[] {7});
        assertThrows(NullPointerException.class, () -> m.writeObject(null));
        assertThrows(MessageFormatException.class, () -> m.writeObject(new ArrayList<>()));
        m.reset();
        assertEquals(1, m.readInt());
        assertEquals('c', m.readChar());
        assertEquals("s", m.readUTF());
        assertEquals(7, m.readByte());
    }

    @Test
    void writeUtfRefusesStringsLongerThan65535EncodedBytes() {
        TributaryBytesMessage m = new TributaryBytesMessage();
        assertThrows(MessageFormatException.class, () -> m.writeUTF("x".repeat(65536)));
    }

    @Test
    void getBodyReturnsACopyOfAllBytesAndResetsTheMessage() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeBytes(new byte[] {1, 2, 3});
        assertTrue(m.isBodyAssignableTo(byte[].class));
        assertTrue(m.isBodyAssignableTo(Object.class));
        assertFalse(m.isBodyAssignableTo(String.class));
        assertArrayEquals(new byte[] {1, 2, 3}, m.getBody(byte[].class));
        // "This method will reset the BytesMessage before and after use": now readable from the start.
        assertEquals(1, m.readByte());
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) m.getBody(Object.class));
        assertEquals(1, m.readByte());
        assertThrows(MessageFormatException.class, () -> m.getBody(String.class));
    }

    @Test
    void anEmptyBytesMessageHasNoBody() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        assertTrue(m.isBodyAssignableTo(String.class));
        assertNull(m.getBody(String.class));
    }

    @Test
    void aReceivedMessageIsReadableAndReadOnlyUntilClearBody() throws JMSException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.loadBody(new byte[] {0, 0, 0, 9});
        m.markReceived();
        assertEquals(9, m.readInt());
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(1));
        m.clearBody();
        m.writeInt(1);
    }

    @Test
    void encodingAWriteOnlyMessageLeavesItWritable() throws JMSException, IOException {
        TributaryBytesMessage m = new TributaryBytesMessage();
        m.writeByte((byte) 1);
        assertArrayEquals(new byte[] {1}, m.bodyBytes());
        m.writeByte((byte) 2);
        assertArrayEquals(new byte[] {1, 2}, m.bodyBytes());
    }
}
