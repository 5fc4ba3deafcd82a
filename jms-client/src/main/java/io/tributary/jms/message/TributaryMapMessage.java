package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.MessageFormatException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message whose body is a set of named values: boxed primitives (including {@code Character}), {@code String},
 * {@code byte[]} or null, read back with the conversion table of Jakarta Messaging 3.1 §3.11.3 (see
 * {@link TypeConversions}). A name not set reads as null. Names are any non-empty strings. Byte arrays are copied in
 * and out. Travels in the binary map encoding documented on {@link MessageCodec}.
 *
 * <p>Not thread-safe, like every message.
 */
public class TributaryMapMessage extends TributaryMessage implements MapMessage {

    /** Insertion order kept so the encoding, and {@link #getMapNames()}, follow the order of the first sets. */
    private final Map<String, Object> entries = new LinkedHashMap<>();

    /** An empty map message, as {@code Session.createMapMessage()} returns. */
    public TributaryMapMessage() {
    }

    /** The live entries, for {@link MessageCodec}. */
    Map<String, Object> entries() {
        return entries;
    }

    @Override
    public boolean getBoolean(String name) throws JMSException {
        return TypeConversions.toBoolean(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public byte getByte(String name) throws JMSException {
        return TypeConversions.toByte(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public short getShort(String name) throws JMSException {
        return TypeConversions.toShort(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public char getChar(String name) throws JMSException {
        return TypeConversions.toChar(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public int getInt(String name) throws JMSException {
        return TypeConversions.toInt(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public long getLong(String name) throws JMSException {
        return TypeConversions.toLong(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public float getFloat(String name) throws JMSException {
        return TypeConversions.toFloat(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public double getDouble(String name) throws JMSException {
        return TypeConversions.toDouble(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public String getString(String name) throws JMSException {
        return TypeConversions.toStringValue(entries.get(name), TypeConversions.mapEntry(name));
    }

    @Override
    public byte[] getBytes(String name) throws JMSException {
        return TypeConversions.toBytes(entries.get(name), TypeConversions.mapEntry(name));
    }

    /** The value as set, boxed; a {@code byte[]} is returned as a copy. */
    @Override
    public Object getObject(String name) {
        Object value = entries.get(name);
        return value instanceof byte[] bytes ? bytes.clone() : value;
    }

    @Override
    public Enumeration<String> getMapNames() {
        return Collections.enumeration(new ArrayList<>(entries.keySet()));
    }

    @Override
    public void setBoolean(String name, boolean value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setByte(String name, byte value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setShort(String name, short value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setChar(String name, char value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setInt(String name, int value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setLong(String name, long value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setFloat(String name, float value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setDouble(String name, double value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setString(String name, String value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setBytes(String name, byte[] value) throws JMSException {
        put(name, value == null ? null : value.clone());
    }

    @Override
    public void setBytes(String name, byte[] value, int offset, int length) throws JMSException {
        byte[] copy = new byte[length];
        System.arraycopy(value, offset, copy, 0, length);
        put(name, copy);
    }

    /**
     * Sets a boxed primitive, {@code String}, {@code byte[]} (copied) or null; any other class throws
     * {@link MessageFormatException}.
     */
    @Override
    public void setObject(String name, Object value) throws JMSException {
        checkName(name);
        if (value instanceof byte[] bytes) {
            put(name, bytes.clone());
        } else if (value == null || isBodyValueType(value)) {
            put(name, value);
        } else {
            throw new MessageFormatException("map entry '" + name + "' cannot hold a " + value.getClass().getName()
                    + "; MapMessage values are boxed primitives, String or byte[]");
        }
    }

    @Override
    public boolean itemExists(String name) {
        return entries.containsKey(name);
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        entries.clear();
    }

    /** A {@code HashMap} copy of the entries (byte arrays copied), or null when the map is empty. */
    @Override
    Object body() {
        if (entries.isEmpty()) {
            return null;
        }
        Map<String, Object> copy = new HashMap<>();
        entries.forEach((name, value) -> copy.put(name, value instanceof byte[] bytes ? bytes.clone() : value));
        return copy;
    }

    @Override
    public boolean isBodyAssignableTo(@SuppressWarnings("rawtypes") Class c) {
        return entries.isEmpty() || ((Class<?>) c).isAssignableFrom(HashMap.class);
    }

    @Override
    String bodyTypeName() {
        return "MapMessage";
    }

    /** A value Map and Stream messages hold: a property type, a {@code Character} or a {@code byte[]}. */
    static boolean isBodyValueType(Object value) {
        return isPropertyType(value) || value instanceof Character || value instanceof byte[];
    }

    private void put(String name, Object value) throws JMSException {
        checkName(name);
        checkBodyWritable();
        entries.put(name, value);
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a MapMessage entry name must not be null or empty");
        }
    }
}
