package io.tributary.jms.selector;

/**
 * The binary arithmetic operators with Java's semantics in each promoted type: integer arithmetic wraps on overflow,
 * floating-point arithmetic follows IEEE 754. Integer division by zero, which Java answers with an exception, is
 * NULL here: a selector must not fail on a message, and section 3.8.1.2 already makes NULL the value of arithmetic
 * that has no value.
 */
enum ArithmeticOperator {
    ADD("+"), SUBTRACT("-"), MULTIPLY("*"), DIVIDE("/");

    private final String symbol;

    ArithmeticOperator(String symbol) {
        this.symbol = symbol;
    }

    String symbol() {
        return symbol;
    }

    /** {@code left op right} after numeric promotion, or {@code null} if either is not a number or on x / 0. */
    Object apply(Object left, Object right) {
        NumericType leftType = NumericType.of(left);
        NumericType rightType = NumericType.of(right);
        if (leftType == null || rightType == null) {
            return null;
        }
        Number l = (Number) left;
        Number r = (Number) right;
        return switch (NumericType.promote(leftType, rightType)) {
            case INT -> this == DIVIDE && r.intValue() == 0 ? null : (Object) applyInt(l.intValue(), r.intValue());
            case LONG -> this == DIVIDE && r.longValue() == 0 ? null : (Object) applyLong(l.longValue(), r.longValue());
            case FLOAT -> applyFloat(l.floatValue(), r.floatValue());
            case DOUBLE -> applyDouble(l.doubleValue(), r.doubleValue());
        };
    }

    private int applyInt(int l, int r) {
        return switch (this) {
            case ADD -> l + r;
            case SUBTRACT -> l - r;
            case MULTIPLY -> l * r;
            case DIVIDE -> l / r;
        };
    }

    private long applyLong(long l, long r) {
        return switch (this) {
            case ADD -> l + r;
            case SUBTRACT -> l - r;
            case MULTIPLY -> l * r;
            case DIVIDE -> l / r;
        };
    }

    private float applyFloat(float l, float r) {
        return switch (this) {
            case ADD -> l + r;
            case SUBTRACT -> l - r;
            case MULTIPLY -> l * r;
            case DIVIDE -> l / r;
        };
    }

    private double applyDouble(double l, double r) {
        return switch (this) {
            case ADD -> l + r;
            case SUBTRACT -> l - r;
            case MULTIPLY -> l * r;
            case DIVIDE -> l / r;
        };
    }
}
