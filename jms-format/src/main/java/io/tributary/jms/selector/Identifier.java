package io.tributary.jms.selector;

import java.util.function.Function;

/**
 * A reference to a header field or a property, looked up by its case-sensitive name at every evaluation. The six
 * header fields that selectors may use have a known type; properties are typed by the value a message carries.
 */
final class Identifier extends Expression {

    private final String name;
    private final HeaderField header;

    Identifier(int position, String name) {
        super(position, 1);
        this.name = name;
        this.header = HeaderField.named(name);
    }

    @Override
    ValueType type() {
        return header == null ? ValueType.DYNAMIC : header.type();
    }

    @Override
    Object evaluate(Function<String, Object> identifiers) {
        return identifiers.apply(name);
    }

    @Override
    public String toString() {
        return name;
    }
}
