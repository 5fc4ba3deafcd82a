package io.tributary.jms.selector;

import java.util.function.Function;

/** {@code left + right}, {@code left - right}, {@code left * right} or {@code left / right}. */
final class Arithmetic extends Expression {

    private final ArithmeticOperator operator;
    private final Expression left;
    private final Expression right;

    Arithmetic(ArithmeticOperator operator, Expression left, Expression right) {
        super(left.position, depthOver(left, right));
        this.operator = operator;
        this.left = left;
        this.right = right;
    }

    @Override
    ValueType type() {
        return ValueType.NUMBER;
    }

    @Override
    Object evaluate(Function<String, Object> identifiers) {
        Object l = left.evaluate(identifiers);
        if (l == null) {
            return null;
        }
        Object r = right.evaluate(identifiers);
        return r == null ? null : operator.apply(l, r);
    }

    @Override
    public String toString() {
        return "(" + left + " " + operator.symbol() + " " + right + ")";
    }
}
