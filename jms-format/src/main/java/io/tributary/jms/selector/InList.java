package io.tributary.jms.selector;

import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code identifier [NOT] IN ('a', 'b', ...)}. Jakarta Messaging 3.1 section 3.8.1.1 defines IN as a comparison
 * operator "where identifier has a String or NULL value": a NULL identifier gives UNKNOWN, and so does a value of
 * another type (a number, a boolean), for which the operation is invalid. NOT IN is then UNKNOWN too, not TRUE: a
 * message whose property is the int 7 is not selected by {@code p NOT IN ('a', 'b')} (issue 22), as it is not by
 * {@code p IN ('a', 'b')}. The entries are held in a hash set: one lookup per evaluation whatever the length of the
 * list.
 */
final class InList extends Condition {

    private final Identifier identifier;
    private final List<String> entries;
    private final Set<String> entrySet;
    private final boolean negated;

    InList(Identifier identifier, List<String> entries, boolean negated) {
        super(identifier.position, 2);
        this.identifier = identifier;
        this.entries = List.copyOf(entries);
        this.entrySet = Set.copyOf(entries);
        this.negated = negated;
    }

    @Override
    Truth test(Function<String, Object> identifiers) {
        Object v = identifier.evaluate(identifiers);
        if (!(v instanceof String s)) {
            return Truth.UNKNOWN; // NULL, or a type IN is not defined for (section 3.8.1.1)
        }
        return Truth.of(entrySet.contains(s) != negated);
    }

    @Override
    public String toString() {
        return "(" + identifier + (negated ? " NOT IN (" : " IN (")
                + entries.stream().map(Strings::quote).collect(Collectors.joining(", ")) + "))";
    }
}
