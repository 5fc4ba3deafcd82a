package io.tributary.jms.selector;

import java.util.function.Function;

/**
 * {@code identifier [NOT] LIKE 'pattern' [ESCAPE 'c']}. The pattern is compiled once, when the selector is parsed.
 * Jakarta Messaging 3.1 section 3.8.1.1 defines LIKE as a comparison operator "where identifier has a String value",
 * and a NULL identifier gives UNKNOWN. A value of another type makes the operation invalid: UNKNOWN as well, for LIKE
 * and NOT LIKE alike, as for {@link InList} (so a message whose property is a number is selected by neither).
 */
final class Like extends Condition {

    private final Identifier identifier;
    private final LikePattern pattern;
    private final boolean negated;

    Like(Identifier identifier, LikePattern pattern, boolean negated) {
        super(identifier.position, 2);
        this.identifier = identifier;
        this.pattern = pattern;
        this.negated = negated;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        Object v = identifier.evaluate(identifiers);
        if (!(v instanceof String s)) {
            return Truth.UNKNOWN; // NULL, or a type LIKE is not defined for (section 3.8.1.1)
        }
        return Truth.of(pattern.matches(s) != negated);
    }

    @Override
    public String toString() {
        return "(" + identifier + (negated ? " NOT LIKE " : " LIKE ") + pattern + ")";
    }
}
