package io.tributary.jms.format;

import jakarta.jms.MessageFormatException;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The binary form of typed values: property header values, and {@code MapMessage} and {@code StreamMessage} bodies.
 * The tables are on the provider's {@code io.tributary.jms.message.MessageCodec}, which is the public description of
 * the record layout; this class only implements them.
 *
 * <p>A value is a one-byte tag followed by its big-endian payload. In a property header the payload of a
 * {@code String} is the rest of the header value; in a body, a {@code String} or {@code byte[]} payload is a
 * four-byte length followed by that many bytes, so values can follow each other. Decoding is strict: a wrong length,
 * an unknown tag or trailing bytes throw {@link MessageFormatException} with the reason (the caller adds which header
 * or record).
 *
 * <p>Stateless; any thread.
 */
public final class TypedValueFormat {

    public static final byte NULL = 0;
    public static final byte BOOLEAN = 1;
    public static final byte BYTE = 2;
    public static final byte SHORT = 3;
    public static final byte INT = 4;
    public static final byte LONG = 5;
    public static final byte FLOAT = 6;
    public static final byte DOUBLE = 7;
    public static final byte STRING = 8;
    public static final byte CHAR = 9;
    public static final byte BYTES = 10;

    private TypedValueFormat() {
    }

    /** A property value (a property type or null) as a header value: tag, then payload; a String's is unprefixed. */
    public static byte[] encodeProperty(Object value) {
        if (value instanceof String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            byte[] header = new byte[1 + utf8.length];
            header[0] = STRING;
            System.arraycopy(utf8, 0, header, 1, utf8.length);
            return header;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(9);
        writeValue(out, value);
        return out.toByteArray();
    }

    /** Reads a property header value; {@code char} and {@code byte[]} are not property types and are refused. */
    public static Object decodeProperty(byte[] header) throws MessageFormatException {
        if (header == null || header.length == 0) {
            throw new MessageFormatException("an empty value; a property value starts with a one-byte type tag");
        }
        if (header[0] == STRING) {
            return new String(header, 1, header.length - 1, StandardCharsets.UTF_8);
        }
        if (header[0] == CHAR || header[0] == BYTES) {
            throw new MessageFormatException("type tag " + header[0] + " (" + (header[0] == CHAR ? "char" : "byte[]")
                    + ") is not a property type");
        }
        ByteBuffer in = ByteBuffer.wrap(header);
        Object value = readValue(in);
        requireEnd(in);
        return value;
    }

    /** A map body: entry count (int32), then per entry the name (int32 length, UTF-8) and a tagged value. */
    public static byte[] encodeMap(Map<String, Object> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        writeInt(out, entries.size());
        for (Map.Entry<String, Object> entry : entries.entrySet()) {
            writeSized(out, entry.getKey().getBytes(StandardCharsets.UTF_8));
            writeValue(out, entry.getValue());
        }
        return out.toByteArray();
    }

    public static void decodeMap(byte[] body, Map<String, Object> into) throws MessageFormatException {
        ByteBuffer in = ByteBuffer.wrap(body);
        try {
            int count = readCount(in, "entry count");
            for (int i = 0; i < count; i++) {
                String name = new String(readSized(in, "name of entry " + i), StandardCharsets.UTF_8);
                if (name.isEmpty()) {
                    throw new MessageFormatException("entry " + i + " has an empty name");
                }
                into.put(name, readValue(in));
            }
        } catch (BufferUnderflowException e) {
            throw truncated(in);
        }
        requireEnd(in);
    }

    /** A stream body: field count (int32), then the tagged values in order. */
    public static byte[] encodeStream(List<Object> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        writeInt(out, fields.size());
        for (Object field : fields) {
            writeValue(out, field);
        }
        return out.toByteArray();
    }

    public static void decodeStream(byte[] body, List<Object> into) throws MessageFormatException {
        ByteBuffer in = ByteBuffer.wrap(body);
        try {
            int count = readCount(in, "field count");
            for (int i = 0; i < count; i++) {
                into.add(readValue(in));
            }
        } catch (BufferUnderflowException e) {
            throw truncated(in);
        }
        requireEnd(in);
    }

    private static void writeValue(ByteArrayOutputStream out, Object value) {
        if (value == null) {
            out.write(NULL);
        } else if (value instanceof Boolean v) {
            out.write(BOOLEAN);
            out.write(v ? 1 : 0);
        } else if (value instanceof Byte v) {
            out.write(BYTE);
            out.write(v);
        } else if (value instanceof Short v) {
            out.write(SHORT);
            writeShort(out, v);
        } else if (value instanceof Integer v) {
            out.write(INT);
            writeInt(out, v);
        } else if (value instanceof Long v) {
            out.write(LONG);
            writeLong(out, v);
        } else if (value instanceof Float v) {
            out.write(FLOAT);
            writeInt(out, Float.floatToRawIntBits(v));
        } else if (value instanceof Double v) {
            out.write(DOUBLE);
            writeLong(out, Double.doubleToRawLongBits(v));
        } else if (value instanceof String v) {
            out.write(STRING);
            writeSized(out, v.getBytes(StandardCharsets.UTF_8));
        } else if (value instanceof Character v) {
            out.write(CHAR);
            writeShort(out, (short) v.charValue());
        } else if (value instanceof byte[] v) {
            out.write(BYTES);
            writeSized(out, v);
        } else {
            // The message classes let no other type in.
            throw new IllegalArgumentException("not a JMS value type: " + value.getClass().getName());
        }
    }

    /** Reads one tagged value; in a body a String is length-prefixed (property Strings never reach here). */
    private static Object readValue(ByteBuffer in) throws MessageFormatException {
        try {
            byte tag = in.get();
            return switch (tag) {
                case NULL -> null;
                case BOOLEAN -> {
                    byte b = in.get();
                    if (b != 0 && b != 1) {
                        throw new MessageFormatException("boolean byte " + b + " at position " + (in.position() - 1)
                                + " is neither 0 nor 1");
                    }
                    yield b == 1;
                }
                case BYTE -> in.get();
                case SHORT -> in.getShort();
                case INT -> in.getInt();
                case LONG -> in.getLong();
                case FLOAT -> in.getFloat();
                case DOUBLE -> in.getDouble();
                case STRING -> new String(readSized(in, "String"), StandardCharsets.UTF_8);
                case CHAR -> in.getChar();
                case BYTES -> readSized(in, "byte[]");
                default -> throw new MessageFormatException("unknown type tag " + tag + " at position "
                        + (in.position() - 1));
            };
        } catch (BufferUnderflowException e) {
            throw truncated(in);
        }
    }

    private static int readCount(ByteBuffer in, String what) throws MessageFormatException {
        int count = in.getInt();
        if (count < 0) {
            throw new MessageFormatException("negative " + what + " " + count);
        }
        return count;
    }

    private static byte[] readSized(ByteBuffer in, String what) throws MessageFormatException {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new MessageFormatException(what + " length " + length + " at position " + (in.position() - 4)
                    + " does not fit the " + in.remaining() + " byte(s) that follow");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    private static void requireEnd(ByteBuffer in) throws MessageFormatException {
        if (in.hasRemaining()) {
            throw new MessageFormatException(in.remaining() + " unexpected byte(s) after the last value, at position "
                    + in.position());
        }
    }

    private static MessageFormatException truncated(ByteBuffer in) {
        return new MessageFormatException("truncated: the " + in.capacity() + " byte(s) end inside a value");
    }

    private static void writeSized(ByteArrayOutputStream out, byte[] bytes) {
        writeInt(out, bytes.length);
        out.write(bytes, 0, bytes.length);
    }

    private static void writeShort(ByteArrayOutputStream out, short v) {
        out.write(v >>> 8);
        out.write(v);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
        writeInt(out, (int) (v >>> 32));
        writeInt(out, (int) v);
    }
}
