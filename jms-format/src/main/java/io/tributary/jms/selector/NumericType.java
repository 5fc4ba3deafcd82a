package io.tributary.jms.selector;

/**
 * The type a number takes part in arithmetic and comparison with, after Java numeric promotion, which Jakarta
 * Messaging 3.1 section 3.8.1.1 prescribes: {@code byte} and {@code short} widen to {@code int}, and of two
 * operands the wider wins in the order {@code int < long < float < double} (JLS 5.6).
 */
enum NumericType {
    INT, LONG, FLOAT, DOUBLE;

    /** The numeric type of a selector value, or {@code null} if it is not one of the Java numeric wrapper types. */
    static NumericType of(Object value) {
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return INT;
        }
        if (value instanceof Long) {
            return LONG;
        }
        if (value instanceof Double) {
            return DOUBLE;
        }
        if (value instanceof Float) {
            return FLOAT;
        }
        return null;
    }

    /** Binary numeric promotion. */
    static NumericType promote(NumericType left, NumericType right) {
        return left.compareTo(right) >= 0 ? left : right;
    }

    /** Unary numeric promotion, as Java applies it to the operand of unary {@code +} and {@code -}. */
    static Number promote(Object value) {
        NumericType type = of(value);
        if (type == null) {
            return null;
        }
        return type == INT ? Integer.valueOf(((Number) value).intValue()) : (Number) value;
    }
}
