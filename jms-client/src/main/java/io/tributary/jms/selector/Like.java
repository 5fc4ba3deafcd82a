package io.tributary.jms.selector;

import java.util.function.Function;

/**
 * {@code identifier [NOT] LIKE 'pattern' [ESCAPE 'c']}. The pattern is compiled once, when the selector is parsed.
 * A NULL identifier gives UNKNOWN (Jakarta Messaging 3.1 section 3.8.1.1). For an identifier that is not a string,
 * which section 3.8.1.1 leaves open, LIKE is FALSE like any comparison of unlike types, and NOT LIKE is its negation,
 * TRUE, as NOT IN is for IN.
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
        if (v == null) {
            return Truth.UNKNOWN;
        }
        boolean like = v instanceof String s && pattern.matches(s);
        return Truth.of(like != negated);
    }

    @Override
    public String toString() {
        return "(" + identifier + (negated ? " NOT LIKE " : " LIKE ") + pattern + ")";
    }
}
