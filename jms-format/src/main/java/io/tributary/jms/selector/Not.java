package io.tributary.jms.selector;

import java.util.function.Function;

/** {@code NOT operand}. */
final class Not extends Condition {

    private final Expression operand;

    Not(int position, Expression operand) {
        super(position, depthOver(operand));
        this.operand = operand;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        return operand.test(identifiers).not();
    }

    @Override
    public String toString() {
        return "(NOT " + operand + ")";
    }
}
