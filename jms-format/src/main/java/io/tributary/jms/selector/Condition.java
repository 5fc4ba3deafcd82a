package io.tributary.jms.selector;

import java.util.function.Function;

/** An expression whose value is a truth value: a logical operator, a comparison or a predicate. */
abstract class Condition extends Expression {

    Condition(int position, int depth) {
        super(position, depth);
    }

    @Override
    final ValueType type() {
        return ValueType.BOOLEAN;
    }

    @Override
    abstract Truth test(Function<String, Object> identifiers);

    @Override
    final Object evaluate(Function<String, Object> identifiers) {
        return test(identifiers).toBoolean();
    }
}
