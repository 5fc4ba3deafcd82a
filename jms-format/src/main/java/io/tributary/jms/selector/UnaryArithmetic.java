package io.tributary.jms.selector;

import java.util.function.Function;

/**
 * Unary {@code -} or {@code +} of an expression that is not a literal (a literal's sign is folded into the literal
 * by the parser). Both apply unary numeric promotion; a value that is not a number gives NULL.
 */
final class UnaryArithmetic extends Expression {

    private final boolean negate;
    private final Expression operand;

    UnaryArithmetic(int position, boolean negate, Expression operand) {
        super(position, depthOver(operand));
        this.negate = negate;
        this.operand = operand;
    }

    @Override
    ValueType type() {
        return ValueType.NUMBER;
    }

    @Override
    Object evaluate(Function<String, Object> identifiers) {
        Number value = NumericType.promote(operand.evaluate(identifiers));
        return negate && value != null ? negate(value) : value;
    }

    /** Java's unary minus on a promoted value: {@code -Integer.MIN_VALUE} wraps to itself. */
    static Number negate(Number promoted) {
        if (promoted instanceof Integer i) {
            return -i;
        }
        if (promoted instanceof Long l) {
            return -l;
        }
        if (promoted instanceof Float f) {
            return -f;
        }
        return -promoted.doubleValue();
    }

    @Override
    public String toString() {
        return "(" + (negate ? "-" : "+") + operand + ")";
    }
}
