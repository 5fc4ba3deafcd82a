package io.tributary.jms.selector;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code a OR b OR ...}, held as one node (see {@link And}). Operands are evaluated left to right and evaluation
 * stops at the first TRUE (Jakarta Messaging 3.1 table 3-5).
 */
final class Or extends Condition {

    private final Expression[] operands;

    Or(List<Expression> operands) {
        this(operands.toArray(new Expression[0]));
    }

    private Or(Expression[] operands) {
        super(operands[0].position, depthOver(operands));
        this.operands = operands;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        Truth result = Truth.FALSE;
        for (Expression operand : operands) {
            Truth t = operand.test(identifiers);
            if (t == Truth.TRUE) {
                return Truth.TRUE;
            }
            result = result.or(t);
        }
        return result;
    }

    @Override
    public String toString() {
        return Arrays.stream(operands).map(Expression::toString)
                .collect(Collectors.joining(" OR ", "(", ")"));
    }
}
