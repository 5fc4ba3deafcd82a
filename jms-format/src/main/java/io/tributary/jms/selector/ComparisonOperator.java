package io.tributary.jms.selector;

/**
 * The comparison operators {@code = <> < <= > >=} with the rules of Jakarta Messaging 3.1 section 3.8.1.1:
 * <ul>
 *   <li>NULL on either side gives UNKNOWN (section 3.8.1.2);</li>
 *   <li>numbers of any of the numeric types compare after Java numeric promotion, with Java's operators, so
 *       {@code NaN} equals nothing and {@code 0.1F = 0.1} is FALSE exactly as in Java;</li>
 *   <li>strings and booleans compare only with {@code =} and {@code <>}; strings are equal when they hold the same
 *       characters;</li>
 *   <li>any other pairing, an ordering of strings or booleans included, gives FALSE: "If the comparison of non-like
 *       type values is attempted, the value of the operation is false" (and not UNKNOWN, so {@code NOT (s = 1)}
 *       is TRUE for a string {@code s}).</li>
 * </ul>
 */
enum ComparisonOperator {
    EQUAL("="), NOT_EQUAL("<>"), LESS("<"), LESS_OR_EQUAL("<="), GREATER(">"), GREATER_OR_EQUAL(">=");

    private final String symbol;

    ComparisonOperator(String symbol) {
        this.symbol = symbol;
    }

    String symbol() {
        return symbol;
    }

    boolean isEquality() {
        return this == EQUAL || this == NOT_EQUAL;
    }

    Truth compare(Object left, Object right) {
        if (left == null || right == null) {
            return Truth.UNKNOWN;
        }
        NumericType leftType = NumericType.of(left);
        NumericType rightType = NumericType.of(right);
        if (leftType != null && rightType != null) {
            Number l = (Number) left;
            Number r = (Number) right;
            return Truth.of(switch (NumericType.promote(leftType, rightType)) {
                case INT, LONG -> test(l.longValue(), r.longValue());
                case FLOAT -> test(l.floatValue(), r.floatValue());
                case DOUBLE -> test(l.doubleValue(), r.doubleValue());
            });
        }
        if (isEquality() && (left instanceof String && right instanceof String
                || left instanceof Boolean && right instanceof Boolean)) {
            return Truth.of(left.equals(right) == (this == EQUAL));
        }
        return Truth.FALSE;
    }

    private boolean test(long l, long r) {
        return switch (this) {
            case EQUAL -> l == r;
            case NOT_EQUAL -> l != r;
            case LESS -> l < r;
            case LESS_OR_EQUAL -> l <= r;
            case GREATER -> l > r;
            case GREATER_OR_EQUAL -> l >= r;
        };
    }

    // Comparing floats as floats (not widened to double) is what Java promotion of float and int/long operands means.
    private boolean test(float l, float r) {
        return switch (this) {
            case EQUAL -> l == r;
            case NOT_EQUAL -> l != r;
            case LESS -> l < r;
            case LESS_OR_EQUAL -> l <= r;
            case GREATER -> l > r;
            case GREATER_OR_EQUAL -> l >= r;
        };
    }

    private boolean test(double l, double r) {
        return switch (this) {
            case EQUAL -> l == r;
            case NOT_EQUAL -> l != r;
            case LESS -> l < r;
            case LESS_OR_EQUAL -> l <= r;
            case GREATER -> l > r;
            case GREATER_OR_EQUAL -> l >= r;
        };
    }
}
