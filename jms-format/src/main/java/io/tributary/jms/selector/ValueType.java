package io.tributary.jms.selector;

/**
 * What the parser knows about the type of an expression before any message is seen. Literals, operators and the
 * header fields have a known type; an application property is {@link #DYNAMIC} because its type is only known when a
 * message is evaluated. The parser refuses expressions whose known types can never make sense, such as
 * {@code 'abc' + 1} or {@code NOT 'x'}; Jakarta Messaging 3.1 section 3.8.1.1 allows such semantic checking.
 */
enum ValueType {
    BOOLEAN("a boolean"), NUMBER("a number"), STRING("a string"), DYNAMIC("an identifier");

    private final String description;

    ValueType(String description) {
        this.description = description;
    }

    boolean canBe(ValueType wanted) {
        return this == wanted || this == DYNAMIC;
    }

    @Override
    public String toString() {
        return description;
    }
}
