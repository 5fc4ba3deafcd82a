package io.tributary.jms.selector;

import java.util.function.Function;

/** {@code identifier IS [NOT] NULL}: TRUE or FALSE, never UNKNOWN, whatever the identifier's type. */
final class NullTest extends Condition {

    private final Identifier identifier;
    private final boolean negated;

    NullTest(Identifier identifier, boolean negated) {
        super(identifier.position, 2);
        this.identifier = identifier;
        this.negated = negated;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        return Truth.of((identifier.evaluate(identifiers) == null) != negated);
    }

    @Override
    public String toString() {
        return "(" + identifier + (negated ? " IS NOT NULL)" : " IS NULL)");
    }
}
