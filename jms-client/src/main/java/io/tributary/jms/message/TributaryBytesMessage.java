package io.tributary.jms.message;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;

/**
 * A message whose body is a stream of uninterpreted bytes, written and read with {@code java.io.DataOutput} and
 * {@code DataInput} encodings (big-endian primitives, modified UTF-8 strings with a two-byte length). The record
 * value is exactly these bytes, so a plain Kafka client reads what the application wrote.
 *
 * <p>A new or cleared message is write-only: reads throw {@link MessageNotReadableException}. {@link #reset()}
 * switches it to read-only mode at the first byte (writes then throw {@code MessageNotWriteableException}); a received
 * message is already reset. A read that finds too few bytes throws {@link MessageEOFException} and leaves the position
 * where it was, as does a {@link #readUTF()} that finds malformed UTF-8 (Jakarta Messaging 3.1 §3.11.3).
 *
 * <p>Not thread-safe, like every message.
 */
public class TributaryBytesMessage extends TributaryMessage implements BytesMessage {

    /** Write mode: what has been written so far. Null in read mode. */
    private ByteArrayOutputStream written = new ByteArrayOutputStream();
    private DataOutputStream out = new DataOutputStream(written);
    /** Read mode: the whole body and the read position. Null in write mode. */
    private ByteBuffer in;

    /** An empty, write-only bytes message, as {@code Session.createBytesMessage()} returns. */
    public TributaryBytesMessage() {
    }

    /** Every byte of the body, whatever the mode; the message is left as it was. */
    byte[] bodyBytes() {
        if (in == null) {
            return written.toByteArray();
        }
        byte[] all = new byte[in.capacity()];
        in.duplicate().position(0).get(all);
        return all;
    }

    /** Replaces the body with {@code bytes} (not copied) in read mode; for {@link MessageCodec}. */
    void loadBody(byte[] bytes) {
        written = null;
        out = null;
        in = ByteBuffer.wrap(bytes);
        bodyReadOnly = true;
    }

    @Override
    public void reset() {
        if (in == null) {
            loadBody(written.toByteArray());
        } else {
            in.position(0);
        }
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        in = null;
        written = new ByteArrayOutputStream();
        out = new DataOutputStream(written);
    }

    @Override
    public long getBodyLength() throws JMSException {
        return readable().capacity();
    }

    @Override
    public boolean readBoolean() throws JMSException {
        return need(1).get() != 0;
    }

    @Override
    public byte readByte() throws JMSException {
        return need(1).get();
    }

    @Override
    public int readUnsignedByte() throws JMSException {
        return need(1).get() & 0xFF;
    }

    @Override
    public short readShort() throws JMSException {
        return need(2).getShort();
    }

    @Override
    public int readUnsignedShort() throws JMSException {
        return need(2).getShort() & 0xFFFF;
    }

    @Override
    public char readChar() throws JMSException {
        return need(2).getChar();
    }

    @Override
    public int readInt() throws JMSException {
        return need(4).getInt();
    }

    @Override
    public long readLong() throws JMSException {
        return need(8).getLong();
    }

    @Override
    public float readFloat() throws JMSException {
        return need(4).getFloat();
    }

    @Override
    public double readDouble() throws JMSException {
        return need(8).getDouble();
    }

    @Override
    public String readUTF() throws JMSException {
        ByteBuffer buffer = need(2);
        int start = buffer.position();
        int length = 2 + (buffer.getShort(start) & 0xFFFF);
        need(length);
        try {
            String text = new DataInputStream(new ByteArrayInputStream(buffer.array(), start, length)).readUTF();
            buffer.position(start + length);
            return text;
        } catch (UTFDataFormatException e) {
            throw withCause(new MessageFormatException("the " + (length - 2) + " bytes at position " + start
                    + " of this BytesMessage are not modified UTF-8"), e);
        } catch (IOException e) {
            throw withCause(new JMSException("reading a UTF string from a byte array failed"), e);
        }
    }

    /**
     * Reads up to {@code value.length} bytes: fills the array while enough bytes remain; a return value below the
     * array's length means the body is exhausted, and the next call returns -1.
     */
    @Override
    public int readBytes(byte[] value) throws JMSException {
        return readBytes(value, value.length);
    }

    @Override
    public int readBytes(byte[] value, int length) throws JMSException {
        if (length < 0 || length > value.length) {
            throw new IndexOutOfBoundsException("length " + length + " is outside 0.." + value.length);
        }
        ByteBuffer buffer = readable();
        if (!buffer.hasRemaining()) {
            return -1;
        }
        int n = Math.min(length, buffer.remaining());
        buffer.get(value, 0, n);
        return n;
    }

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        try {
            writable().writeBoolean(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        try {
            writable().writeByte(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeShort(short value) throws JMSException {
        try {
            writable().writeShort(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeChar(char value) throws JMSException {
        try {
            writable().writeChar(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeInt(int value) throws JMSException {
        try {
            writable().writeInt(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeLong(long value) throws JMSException {
        try {
            writable().writeLong(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        try {
            writable().writeFloat(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        try {
            writable().writeDouble(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    /** Writes modified UTF-8 with a two-byte length; more than 65535 encoded bytes throw MessageFormatException. */
    @Override
    public void writeUTF(String value) throws JMSException {
        try {
            writable().writeUTF(value);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeBytes(byte[] value) throws JMSException {
        try {
            writable().write(value, 0, value.length);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void writeBytes(byte[] value, int offset, int length) throws JMSException {
        try {
            writable().write(value, offset, length);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    /**
     * Writes a boxed primitive, {@code String} (as {@link #writeUTF}) or {@code byte[]}; null throws
     * {@link NullPointerException} (§3.12: a bytes message has no null), any other class
     * {@link MessageFormatException}.
     */
    @Override
    public void writeObject(Object value) throws JMSException {
        if (value == null) {
            throw new NullPointerException("a BytesMessage cannot hold null (Jakarta Messaging 3.1 §3.12)");
        }
        if (value instanceof Boolean v) {
            writeBoolean(v);
        } else if (value instanceof Byte v) {
            writeByte(v);
        } else if (value instanceof Short v) {
            writeShort(v);
        } else if (value instanceof Character v) {
            writeChar(v);
        } else if (value instanceof Integer v) {
            writeInt(v);
        } else if (value instanceof Long v) {
            writeLong(v);
        } else if (value instanceof Float v) {
            writeFloat(v);
        } else if (value instanceof Double v) {
            writeDouble(v);
        } else if (value instanceof String v) {
            writeUTF(v);
        } else if (value instanceof byte[] v) {
            writeBytes(v);
        } else {
            throw new MessageFormatException("BytesMessage.writeObject takes a boxed primitive, a String or a byte[],"
                    + " not a " + value.getClass().getName());
        }
    }

    /** Resets the message (to read mode, first byte) before and after taking the body, as {@code getBody} says. */
    @Override
    Object body() {
        reset();
        byte[] all = bodyBytes();
        reset();
        return all.length == 0 ? null : all;
    }

    /** Unlike {@link #getBody}, leaves the mode and position alone: the specification asks no reset here. */
    @Override
    public boolean isBodyAssignableTo(@SuppressWarnings("rawtypes") Class c) {
        return bodyBytes().length == 0 || ((Class<?>) c).isAssignableFrom(byte[].class);
    }

    /** A received message is read from its first byte. */
    @Override
    void markReceived() throws JMSException {
        super.markReceived();
        reset();
    }

    @Override
    String bodyTypeName() {
        return "BytesMessage";
    }

    private ByteBuffer readable() throws MessageNotReadableException {
        if (in == null) {
            throw new MessageNotReadableException("this BytesMessage is in write-only mode; call reset() to read it"
                    + " (Jakarta Messaging 3.1 BytesMessage)");
        }
        return in;
    }

    private ByteBuffer need(int bytes) throws JMSException {
        ByteBuffer buffer = readable();
        if (buffer.remaining() < bytes) {
            throw new MessageEOFException("the BytesMessage has " + buffer.remaining() + " byte(s) left at position "
                    + buffer.position() + ", " + bytes + " needed");
        }
        return buffer;
    }

    private DataOutputStream writable() throws JMSException {
        checkBodyWritable();
        return out;
    }

    /** {@code DataOutputStream} over a byte array fails only in writeUTF, for a string over 65535 encoded bytes. */
    private static JMSException writeFailed(IOException e) {
        if (e instanceof UTFDataFormatException) {
            return withCause(new MessageFormatException("a BytesMessage string is limited to 65535 bytes of"
                    + " modified UTF-8: " + e.getMessage()), e);
        }
        return withCause(new JMSException("writing to the BytesMessage failed: " + e), e);
    }
}
