package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every cell of the Jakarta Messaging 3.1 conversion tables, allowed and refused: Table 3-2 for properties (§3.5.4) and
 * Table 3-7 for MapMessage and StreamMessage (§3.11.3). The tables below are copied from the specification; a test
 * case per cell writes the row's sample value and reads it as the column's type.
 */
class ConversionTableTest {

    private static final List<String> PROPERTY_COLUMNS =
            List.of("boolean", "byte", "short", "int", "long", "float", "double", "String");
    private static final String[] PROPERTY_TABLE = {
        "boolean  X . . . . . . X",
        "byte     . X X X X . . X",
        "short    . . X X X . . X",
        "int      . . . X X . . X",
        "long     . . . . X . . X",
        "float    . . . . . X X X",
        "double   . . . . . . X X",
        "String   X X X X X X X X",
    };

    private static final List<String> BODY_COLUMNS =
            List.of("boolean", "byte", "short", "char", "int", "long", "float", "double", "String", "byte[]");
    private static final String[] BODY_TABLE = {
        "boolean  X . . . . . . . X .",
        "byte     . X X . X X . . X .",
        "short    . . X . X X . . X .",
        "char     . . . X . . . . X .",
        "int      . . . . X X . . X .",
        "long     . . . . . X . . X .",
        "float    . . . . . . X X X .",
        "double   . . . . . . . X X .",
        "String   X X X . X X X X X .",
        "byte[]   . . . . . . . . . X",
    };

    /** The value written for each row; the String row holds a number so every numeric read succeeds. */
    private static final Map<String, Object> SAMPLES = Map.of(
            "boolean", true, "byte", (byte) 1, "short", (short) 2, "char", 'c', "int", 3, "long", 4L,
            "float", 1.5f, "double", 2.5d, "String", "7", "byte[]", new byte[] {9, 8});

    static Stream<Arguments> propertyCells() {
        return cells(PROPERTY_TABLE, PROPERTY_COLUMNS);
    }

    static Stream<Arguments> bodyCells() {
        return cells(BODY_TABLE, BODY_COLUMNS);
    }

    @ParameterizedTest(name = "property written as {0}, read as {1}: allowed={2}")
    @MethodSource("propertyCells")
    void propertyConversionFollowsTable3_2(String written, String readAs, boolean allowed) throws JMSException {
        TributaryMessage message = new TributaryMessage();
        message.setObjectProperty("p", SAMPLES.get(written));
        if (allowed) {
            assertReadValue(expected(SAMPLES.get(written), readAs), readProperty(message, readAs));
        } else {
            assertThrows(MessageFormatException.class, () -> readProperty(message, readAs));
        }
    }

    @ParameterizedTest(name = "map entry written as {0}, read as {1}: allowed={2}")
    @MethodSource("bodyCells")
    void mapConversionFollowsTable3_7(String written, String readAs, boolean allowed) throws JMSException {
        TributaryMapMessage message = new TributaryMapMessage();
        message.setObject("e", SAMPLES.get(written));
        if (allowed) {
            assertReadValue(expected(SAMPLES.get(written), readAs), readMapEntry(message, readAs));
        } else {
            assertThrows(MessageFormatException.class, () -> readMapEntry(message, readAs));
        }
    }

    @ParameterizedTest(name = "stream field written as {0}, read as {1}: allowed={2}")
    @MethodSource("bodyCells")
    void streamConversionFollowsTable3_7AndARefusedReadDoesNotAdvance(String written, String readAs,
                                                                       boolean allowed) throws JMSException {
        TributaryStreamMessage message = new TributaryStreamMessage();
        message.writeObject(SAMPLES.get(written));
        message.reset();
        if (allowed) {
            assertReadValue(expected(SAMPLES.get(written), readAs), readStreamField(message, readAs));
        } else {
            assertThrows(MessageFormatException.class, () -> readStreamField(message, readAs));
            // §3.11.3: the read pointer stays, so the field can be read again as another type.
            assertReadValue(SAMPLES.get(written), message.readObject());
        }
    }

    private static Stream<Arguments> cells(String[] table, List<String> columns) {
        List<Arguments> cells = new ArrayList<>();
        for (String row : table) {
            String[] parts = row.trim().split("\\s+");
            for (int c = 0; c < columns.size(); c++) {
                cells.add(Arguments.of(parts[0], columns.get(c), parts[c + 1].equals("X")));
            }
        }
        return cells.stream();
    }

    /** What a permitted read must return: the same value widened, or parsed from the String, or as text. */
    private static Object expected(Object written, String readAs) {
        if (readAs.equals("String")) {
            return written.toString();
        }
        if (written instanceof String s) {
            return switch (readAs) {
                case "boolean" -> Boolean.valueOf(s);
                case "byte" -> Byte.valueOf(s);
                case "short" -> Short.valueOf(s);
                case "int" -> Integer.valueOf(s);
                case "long" -> Long.valueOf(s);
                case "float" -> Float.valueOf(s);
                case "double" -> Double.valueOf(s);
                default -> throw new AssertionError(readAs);
            };
        }
        if (written instanceof Number n) {
            return switch (readAs) {
                case "byte" -> n.byteValue();
                case "short" -> n.shortValue();
                case "int" -> n.intValue();
                case "long" -> n.longValue();
                case "float" -> n.floatValue();
                case "double" -> n.doubleValue();
                default -> throw new AssertionError(readAs);
            };
        }
        return written;
    }

    private static void assertReadValue(Object expected, Object actual) {
        if (expected instanceof byte[] bytes) {
            assertArrayEquals(bytes, (byte[]) actual);
        } else {
            assertEquals(expected, actual);
        }
    }

    private static Object readProperty(TributaryMessage m, String type) throws JMSException {
        return switch (type) {
            case "boolean" -> m.getBooleanProperty("p");
            case "byte" -> m.getByteProperty("p");
            case "short" -> m.getShortProperty("p");
            case "int" -> m.getIntProperty("p");
            case "long" -> m.getLongProperty("p");
            case "float" -> m.getFloatProperty("p");
            case "double" -> m.getDoubleProperty("p");
            case "String" -> m.getStringProperty("p");
            default -> throw new AssertionError(type);
        };
    }

    private static Object readMapEntry(TributaryMapMessage m, String type) throws JMSException {
        return switch (type) {
            case "boolean" -> m.getBoolean("e");
            case "byte" -> m.getByte("e");
            case "short" -> m.getShort("e");
            case "char" -> m.getChar("e");
            case "int" -> m.getInt("e");
            case "long" -> m.getLong("e");
            case "float" -> m.getFloat("e");
            case "double" -> m.getDouble("e");
            case "String" -> m.getString("e");
            case "byte[]" -> m.getBytes("e");
            default -> throw new AssertionError(type);
        };
    }

    private static Object readStreamField(TributaryStreamMessage m, String type) throws JMSException {
        return switch (type) {
            case "boolean" -> m.readBoolean();
            case "byte" -> m.readByte();
            case "short" -> m.readShort();
            case "char" -> m.readChar();
            case "int" -> m.readInt();
            case "long" -> m.readLong();
            case "float" -> m.readFloat();
            case "double" -> m.readDouble();
            case "String" -> m.readString();
            case "byte[]" -> {
                byte[] buffer = new byte[16];
                int n = m.readBytes(buffer);
                yield Arrays.copyOf(buffer, n);
            }
            default -> throw new AssertionError(type);
        };
    }
}
