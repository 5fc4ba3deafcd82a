package io.tributary.jms.selector;

import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code identifier [NOT] IN ('a', 'b', ...)}. Jakarta Messaging 3.1 section 3.8.1.1 defines IN as
 * {@code (identifier = 'a') OR (identifier = 'b') ...} and NOT IN as {@code NOT (...)}: a NULL identifier gives
 * UNKNOWN, and an identifier that is not a string compares FALSE with every entry, so IN is FALSE and NOT IN is
 * TRUE. The entries are held in a hash set: one lookup per evaluation whatever the length of the list.
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
        if (v == null) {
            return Truth.UNKNOWN;
        }
        boolean in = v instanceof String s && entrySet.contains(s);
        return Truth.of(in != negated);
    }

    @Override
    public String toString() {
        return "(" + identifier + (negated ? " NOT IN (" : " IN (")
                + entries.stream().map(Strings::quote).collect(Collectors.joining(", ")) + "))";
    }
}
