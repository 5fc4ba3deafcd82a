package io.tributary.jms.selector;

import java.util.function.Function;

/**
 * {@code value [NOT] BETWEEN low AND high}, evaluated exactly as the equivalences that Jakarta Messaging 3.1 section
 * 3.8.1.1 gives: {@code value >= low AND value <= high}, and for NOT BETWEEN {@code value < low OR value > high}.
 * The value is evaluated once. Note what the equivalence means for a value that is not a number: both comparisons
 * are FALSE, so BETWEEN and NOT BETWEEN are both FALSE.
 */
final class Between extends Condition {

    private final Expression value;
    private final Expression low;
    private final Expression high;
    private final boolean negated;

    Between(Expression value, Expression low, Expression high, boolean negated) {
        super(value.position, depthOver(value, low, high));
        this.value = value;
        this.low = low;
        this.high = high;
        this.negated = negated;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        Object v = value.evaluate(identifiers);
        if (v == null) {
            return Truth.UNKNOWN;
        }
        Object l = low.evaluate(identifiers);
        Object h = high.evaluate(identifiers);
        if (negated) {
            return ComparisonOperator.LESS.compare(v, l).or(ComparisonOperator.GREATER.compare(v, h));
        }
        return ComparisonOperator.GREATER_OR_EQUAL.compare(v, l).and(ComparisonOperator.LESS_OR_EQUAL.compare(v, h));
    }

    @Override
    public String toString() {
        return "(" + value + (negated ? " NOT BETWEEN " : " BETWEEN ") + low + " AND " + high + ")";
    }
}
