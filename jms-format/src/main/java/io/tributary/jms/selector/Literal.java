package io.tributary.jms.selector;

import java.util.function.Function;

/** A string, numeric or boolean literal; numbers are {@code Integer}, {@code Long}, {@code Float} or {@code Double}. */
final class Literal extends Expression {

    private final Object value;
    private final ValueType type;
    private final String text;

    Literal(int position, Object value, ValueType type, String text) {
        super(position, 1);
        this.value = value;
        this.type = type;
        this.text = text;
    }

    @Override
    ValueType type() {
        return type;
    }

    @Override
    Object evaluate(Function<String, Object> identifiers) {
        return value;
    }

    @Override
    public String toString() {
        return text;
    }
}
