package io.tributary.jms.selector;

import java.util.function.Function;

/**
 * A node of a parsed selector. Nodes are immutable, so one tree is evaluated by any number of threads at once.
 *
 * <p>Evaluation reads the values of identifiers through a function that returns {@code null} for an absent
 * identifier. Values are {@code Boolean}, {@code Byte}, {@code Short}, {@code Integer}, {@code Long},
 * {@code Float}, {@code Double} or {@code String}; a value of another type takes part in no operator (every
 * comparison with it is FALSE, every arithmetic with it NULL). No node throws for a value of the wrong type.
 */
abstract class Expression {

    /** Offset in the selector of the expression's first token, for error messages. */
    final int position;
    /** Levels of nodes from this one down to its deepest leaf (1 for a leaf); evaluation recurses this deep. */
    final int depth;

    Expression(int position, int depth) {
        this.position = position;
        this.depth = depth;
    }

    /** The depth of a node over these children. */
    static int depthOver(Expression... children) {
        int deepest = 0;
        for (Expression child : children) {
            deepest = Math.max(deepest, child.depth);
        }
        return deepest + 1;
    }

    /** The type the parser can see; {@link ValueType#DYNAMIC} when only a message can tell. */
    abstract ValueType type();

    /**
     * This expression's value: a Boolean, a number, a String, or {@code null} for SQL NULL (which is also how a
     * condition's UNKNOWN reads as a value).
     */
    abstract Object evaluate(Function<String, Object> identifiers);

    /** This expression as a condition: a Boolean value is TRUE or FALSE, anything else is UNKNOWN. */
    Truth test(Function<String, Object> identifiers) {
        return Truth.ofValue(evaluate(identifiers));
    }

    /** The expression written back as selector text, with every operation in parentheses. */
    @Override
    public abstract String toString();
}
