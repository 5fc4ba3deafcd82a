package io.tributary.jms.message;

import jakarta.jms.MessageFormatException;

import java.util.function.Function;

/**
 * The Jakarta Messaging conversion tables: which stored value may be read as which Java type.
 *
 * <p>One table serves message properties (Jakarta Messaging 3.1 §3.5.4, Table 3-2) and the bodies of
 * {@code MapMessage} and {@code StreamMessage} (§3.11.3, Table 3-7). The body table is the property table plus
 * {@code char} (readable as {@code char} and {@code String}) and {@code byte[]} (readable only as {@code byte[]});
 * property values are never {@code Character} or {@code byte[]}, so the extra rows never apply to them.
 *
 * <pre>
 * stored \ read as  boolean byte short char int long float double String byte[]
 * boolean             X                                          X
 * byte                      X     X         X    X               X
 * short                           X         X    X               X
 * char                                 X                         X
 * int                                       X    X               X
 * long                                           X               X
 * float                                               X     X    X
 * double                                                    X    X
 * String              X     X     X         X    X    X     X    X
 * byte[]                                                               X
 * </pre>
 *
 * <p>An unmarked cell throws {@link MessageFormatException}. A {@code String} read as a primitive goes through that
 * primitive's {@code valueOf(String)}, so a malformed number throws {@link NumberFormatException}, and so does a
 * missing (null) value read as {@code byte}, {@code short}, {@code int} or {@code long}; a null read as
 * {@code float} or {@code double} throws {@link NullPointerException} (that is what {@code Float.valueOf(null)}
 * does), a null read as {@code boolean} is {@code false}, and a null read as {@code char} throws
 * {@link NullPointerException} (§3.11.3). The runtime exceptions are re-thrown with the value's name in the message.
 *
 * <p>Stateless; any thread.
 */
final class TypeConversions {

    private TypeConversions() {
    }

    /** What is being read, for error messages: "property 'colour'", "map entry 'x'", "stream field 3". */
    interface Source {
        String describe();
    }

    static Source property(String name) {
        return () -> "property '" + name + "'";
    }

    static Source mapEntry(String name) {
        return () -> "map entry '" + name + "'";
    }

    static Source streamField(int index) {
        return () -> "stream field " + index;
    }

    static boolean toBoolean(Object value, Source source) throws MessageFormatException {
        if (value instanceof Boolean b) {
            return b;
        }
        if (value == null || value instanceof String) {
            return Boolean.parseBoolean((String) value);
        }
        throw refused(value, "boolean", source);
    }

    static byte toByte(Object value, Source source) throws MessageFormatException {
        if (value instanceof Byte b) {
            return b;
        }
        if (value == null || value instanceof String) {
            return parse((String) value, Byte::valueOf, "byte", source);
        }
        throw refused(value, "byte", source);
    }

    static short toShort(Object value, Source source) throws MessageFormatException {
        if (value instanceof Short || value instanceof Byte) {
            return ((Number) value).shortValue();
        }
        if (value == null || value instanceof String) {
            return parse((String) value, Short::valueOf, "short", source);
        }
        throw refused(value, "short", source);
    }

    static char toChar(Object value, Source source) throws MessageFormatException {
        if (value instanceof Character c) {
            return c;
        }
        if (value == null) {
            // §3.11.3: char has no String conversion, so a null read as char is a NullPointerException.
            throw new NullPointerException(source.describe() + " is null and cannot be read as char");
        }
        throw refused(value, "char", source);
    }

    static int toInt(Object value, Source source) throws MessageFormatException {
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).intValue();
        }
        if (value == null || value instanceof String) {
            return parse((String) value, Integer::valueOf, "int", source);
        }
        throw refused(value, "int", source);
    }

    static long toLong(Object value, Source source) throws MessageFormatException {
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value == null || value instanceof String) {
            return parse((String) value, Long::valueOf, "long", source);
        }
        throw refused(value, "long", source);
    }

    static float toFloat(Object value, Source source) throws MessageFormatException {
        if (value instanceof Float f) {
            return f;
        }
        if (value == null || value instanceof String) {
            return parse((String) value, Float::valueOf, "float", source);
        }
        throw refused(value, "float", source);
    }

    static double toDouble(Object value, Source source) throws MessageFormatException {
        if (value instanceof Double || value instanceof Float) {
            return ((Number) value).doubleValue();
        }
        if (value == null || value instanceof String) {
            return parse((String) value, Double::valueOf, "double", source);
        }
        throw refused(value, "double", source);
    }

    static String toStringValue(Object value, Source source) throws MessageFormatException {
        if (value == null) {
            return null;
        }
        if (value instanceof byte[]) {
            throw refused(value, "String", source);
        }
        return value.toString();
    }

    /** A copy of a stored {@code byte[]}; null stays null. */
    static byte[] toBytes(Object value, Source source) throws MessageFormatException {
        if (value == null) {
            return null;
        }
        if (value instanceof byte[] bytes) {
            return bytes.clone();
        }
        throw refused(value, "byte[]", source);
    }

    /** The Java type name of a stored value as the conversion tables spell it. */
    static String typeName(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Boolean) {
            return "boolean";
        }
        if (value instanceof Byte) {
            return "byte";
        }
        if (value instanceof Short) {
            return "short";
        }
        if (value instanceof Character) {
            return "char";
        }
        if (value instanceof Integer) {
            return "int";
        }
        if (value instanceof Long) {
            return "long";
        }
        if (value instanceof Float) {
            return "float";
        }
        if (value instanceof Double) {
            return "double";
        }
        if (value instanceof String) {
            return "String";
        }
        if (value instanceof byte[]) {
            return "byte[]";
        }
        return value.getClass().getName();
    }

    private static <T> T parse(String text, Function<String, T> valueOf, String target, Source source) {
        try {
            return valueOf.apply(text);
        } catch (NumberFormatException e) {
            NumberFormatException named = new NumberFormatException(text == null
                    ? source.describe() + " is null and cannot be read as " + target
                    : source.describe() + " holds the String \"" + text + "\", which is not a valid " + target);
            named.initCause(e);
            throw named;
        } catch (NullPointerException e) {
            // Float.valueOf(null) and Double.valueOf(null) throw NullPointerException; the spec keeps that.
            NullPointerException named =
                    new NullPointerException(source.describe() + " is null and cannot be read as " + target);
            named.initCause(e);
            throw named;
        }
    }

    private static MessageFormatException refused(Object value, String target, Source source) {
        return new MessageFormatException(source.describe() + " is a " + typeName(value) + " and cannot be read as "
                + target + " (Jakarta Messaging 3.1 conversion tables, §3.5.4 and §3.11.3)");
    }
}
