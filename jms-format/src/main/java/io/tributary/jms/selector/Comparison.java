package io.tributary.jms.selector;

import java.util.function.Function;

/** {@code left op right} for one of the comparison operators. */
final class Comparison extends Condition {

    private final ComparisonOperator operator;
    private final Expression left;
    private final Expression right;

    Comparison(ComparisonOperator operator, Expression left, Expression right) {
        super(left.position, depthOver(left, right));
        this.operator = operator;
        this.left = left;
        this.right = right;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        Object l = left.evaluate(identifiers);
        if (l == null) {
            return Truth.UNKNOWN;
        }
        return operator.compare(l, right.evaluate(identifiers));
    }

    @Override
    public String toString() {
        return "(" + left + " " + operator.symbol() + " " + right + ")";
    }
}
