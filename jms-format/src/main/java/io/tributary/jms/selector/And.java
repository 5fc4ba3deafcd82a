package io.tributary.jms.selector;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code a AND b AND ...}, held as one node rather than a left-leaning chain so that a long conjunction does not
 * make evaluation recurse once per operand. Operands are evaluated left to right and evaluation stops at the first
 * FALSE, which decides the result whatever follows (Jakarta Messaging 3.1 table 3-4).
 */
final class And extends Condition {

    private final Expression[] operands;

    And(List<Expression> operands) {
        this(operands.toArray(new Expression[0]));
    }

    private And(Expression[] operands) {
        super(operands[0].position, depthOver(operands));
        this.operands = operands;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        Truth result = Truth.TRUE;
        for (Expression operand : operands) {
            Truth t = operand.test(identifiers);
            if (t == Truth.FALSE) {
                return Truth.FALSE;
            }
            result = result.and(t);
        }
        return result;
    }

    @Override
    public String toString() {
        return Arrays.stream(operands).map(Expression::toString)
                .collect(Collectors.joining(" AND ", "(", ")"));
    }
}
