package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.StreamMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * A message whose body is a sequence of typed fields: boxed primitives (including {@code Character}), {@code String},
 * {@code byte[]} or null, read back in order with the conversion table of Jakarta Messaging 3.1 §3.11.3 (see
 * {@link TypeConversions}). Travels in the binary stream encoding documented on {@link MessageCodec}.
 *
 * <p>Modes as for a bytes message: write-only when new or cleared ({@link MessageNotReadableException} on reads),
 * read-only after {@link #reset()} or when received. A read that throws {@link MessageFormatException},
 * {@link NumberFormatException} or {@link NullPointerException} leaves the read position on the same field, so the
 * application can read it again as another type (§3.11.3). Reading past the last field throws
 * {@link MessageEOFException}.
 *
 * <p>{@link #readBytes(byte[])} reads a {@code byte[]} field in chunks: each call copies as much as fits, a return
 * value below the buffer's length ends the field, a return value equal to it calls for another call, which returns
 * -1 once nothing is left; a null field returns -1 and an empty one 0. Once a {@code byte[]} field has been started,
 * any other read throws {@link MessageFormatException} until the field is finished.
 *
 * <p>Not thread-safe, like every message.
 */
public class TributaryStreamMessage extends TributaryMessage implements StreamMessage {

    private final List<Object> fields = new ArrayList<>();
    /** Read mode: the index of the next field to read. */
    private int next;
    /**
     * Read mode: how many bytes of the {@code byte[]} field at {@link #next} have been handed out by readBytes, or -1
     * when no byte[] read is in progress.
     */
    private int bytesRead = -1;

    /** An empty, write-only stream message, as {@code Session.createStreamMessage()} returns. */
    public TributaryStreamMessage() {
    }

    /** The live fields, for {@link MessageCodec}. */
    List<Object> fields() {
        return fields;
    }

    /** Switches to read-only mode at the first field; writes then throw {@code MessageNotWriteableException}. */
    @Override
    public void reset() {
        bodyReadOnly = true;
        next = 0;
        bytesRead = -1;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        fields.clear();
        next = 0;
        bytesRead = -1;
    }

    @Override
    public boolean readBoolean() throws JMSException {
        boolean value = TypeConversions.toBoolean(peek(), field());
        next++;
        return value;
    }

    @Override
    public byte readByte() throws JMSException {
        byte value = TypeConversions.toByte(peek(), field());
        next++;
        return value;
    }

    @Override
    public short readShort() throws JMSException {
        short value = TypeConversions.toShort(peek(), field());
        next++;
        return value;
    }

    @Override
    public char readChar() throws JMSException {
        char value = TypeConversions.toChar(peek(), field());
        next++;
        return value;
    }

    @Override
    public int readInt() throws JMSException {
        int value = TypeConversions.toInt(peek(), field());
        next++;
        return value;
    }

    @Override
    public long readLong() throws JMSException {
        long value = TypeConversions.toLong(peek(), field());
        next++;
        return value;
    }

    @Override
    public float readFloat() throws JMSException {
        float value = TypeConversions.toFloat(peek(), field());
        next++;
        return value;
    }

    @Override
    public double readDouble() throws JMSException {
        double value = TypeConversions.toDouble(peek(), field());
        next++;
        return value;
    }

    @Override
    public String readString() throws JMSException {
        String value = TypeConversions.toStringValue(peek(), field());
        next++;
        return value;
    }

    @Override
    public int readBytes(byte[] value) throws JMSException {
        if (bytesRead < 0) {
            Object field = peek();
            if (field == null) {
                next++;
                return -1;
            }
            if (!(field instanceof byte[])) {
                throw new MessageFormatException(field().describe() + " is a " + TypeConversions.typeName(field)
                        + " and cannot be read as byte[] (Jakarta Messaging 3.1 §3.11.3)");
            }
            if (((byte[]) field).length == 0) {
                next++;
                return 0;
            }
            bytesRead = 0;
        }
        byte[] field = (byte[]) fields.get(next);
        int remaining = field.length - bytesRead;
        if (remaining == 0 && bytesRead > 0) {
            // The previous call filled the buffer exactly and took the last byte: this call ends the field.
            finishBytes();
            return -1;
        }
        int n = Math.min(value.length, remaining);
        System.arraycopy(field, bytesRead, value, 0, n);
        bytesRead += n;
        if (n < value.length) {
            finishBytes();
        }
        return n;
    }

    /** The next field as stored, boxed; a {@code byte[]} as a copy. */
    @Override
    public Object readObject() throws JMSException {
        Object value = peek();
        next++;
        return value instanceof byte[] bytes ? bytes.clone() : value;
    }

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        append(value);
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        append(value);
    }

    @Override
    public void writeShort(short value) throws JMSException {
        append(value);
    }

    @Override
    public void writeChar(char value) throws JMSException {
        append(value);
    }

    @Override
    public void writeInt(int value) throws JMSException {
        append(value);
    }

    @Override
    public void writeLong(long value) throws JMSException {
        append(value);
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        append(value);
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        append(value);
    }

    @Override
    public void writeString(String value) throws JMSException {
        append(value);
    }

    /** Appends a copy of {@code value}; null appends a null field (read back by readBytes as -1). */
    @Override
    public void writeBytes(byte[] value) throws JMSException {
        append(value == null ? null : value.clone());
    }

    @Override
    public void writeBytes(byte[] value, int offset, int length) throws JMSException {
        byte[] copy = new byte[length];
        System.arraycopy(value, offset, copy, 0, length);
        append(copy);
    }

    /**
     * Appends a boxed primitive, {@code String}, {@code byte[]} (copied) or null; any other class throws
     * {@link MessageFormatException}.
     */
    @Override
    public void writeObject(Object value) throws JMSException {
        if (value instanceof byte[] bytes) {
            append(bytes.clone());
        } else if (value == null || TributaryMapMessage.isBodyValueType(value)) {
            append(value);
        } else {
            throw new MessageFormatException("StreamMessage.writeObject takes a boxed primitive, a String or a"
                    + " byte[], not a " + value.getClass().getName());
        }
    }

    /** A stream message body cannot be taken whole: always {@link MessageFormatException} ({@code Message.getBody}). */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        throw new MessageFormatException("getBody is not defined for a StreamMessage (Jakarta Messaging 3.1"
                + " Message.getBody); read its fields with the read methods");
    }

    /** Always false for a stream message ({@code Message.isBodyAssignableTo}). */
    @Override
    public boolean isBodyAssignableTo(@SuppressWarnings("rawtypes") Class c) {
        return false;
    }

    /** A received message is read from its first field. */
    @Override
    void markReceived() throws JMSException {
        super.markReceived();
        reset();
    }

    @Override
    String bodyTypeName() {
        return "StreamMessage";
    }

    /** The field at the read position, after checking read mode, end of stream and a byte[] read in progress. */
    private Object peek() throws JMSException {
        if (!bodyReadOnly) {
            throw new MessageNotReadableException("this StreamMessage is in write-only mode; call reset() to read"
                    + " it (Jakarta Messaging 3.1 StreamMessage)");
        }
        if (bytesRead >= 0) {
            throw new MessageFormatException(field().describe() + " is a byte[] being read with readBytes; read it"
                    + " to its end (readBytes returning less than the buffer length, or -1) before reading another"
                    + " field (Jakarta Messaging 3.1 StreamMessage.readBytes)");
        }
        if (next >= fields.size()) {
            throw new MessageEOFException("the StreamMessage has no field after its " + fields.size() + " field(s)");
        }
        return fields.get(next);
    }

    private TypeConversions.Source field() {
        return TypeConversions.streamField(next);
    }

    private void finishBytes() {
        bytesRead = -1;
        next++;
    }

    private void append(Object value) throws JMSException {
        checkBodyWritable();
        fields.add(value);
    }
}
