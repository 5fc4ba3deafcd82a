package io.tributary.jms.selector;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.jms.InvalidSelectorException;

import java.util.HashMap;
import java.util.Map;

/** Shorthands for the selector tests: parse-or-fail, evaluate against a map, and read the three-valued result. */
final class SelectorTesting {

    private SelectorTesting() {
    }

    static MessageSelector selector(String text) {
        try {
            return MessageSelector.parse(text);
        } catch (InvalidSelectorException e) {
            throw new AssertionError("a valid selector was refused: " + e.getMessage(), e);
        }
    }

    /** Identifier values from alternating names and values; a {@code null} value leaves the identifier absent. */
    static Map<String, Object> values(Object... namesAndValues) {
        Map<String, Object> values = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                values.put((String) namesAndValues[i], namesAndValues[i + 1]);
            }
        }
        return values;
    }

    static boolean matches(String text, Object... namesAndValues) {
        return selector(text).matches(values(namesAndValues)::get);
    }

    /**
     * The selector's truth value, told apart through the public API alone: TRUE matches, FALSE is what makes
     * {@code NOT (selector)} match, and UNKNOWN is neither.
     */
    static Truth truth(String text, Object... namesAndValues) {
        Map<String, Object> values = values(namesAndValues);
        boolean isTrue = selector(text).matches(values::get);
        boolean isFalse = selector("NOT (" + text + ")").matches(values::get);
        assertFalse(isTrue && isFalse, text + " was both TRUE and FALSE");
        return isTrue ? Truth.TRUE : isFalse ? Truth.FALSE : Truth.UNKNOWN;
    }

    static InvalidSelectorException invalid(String text) {
        return assertThrows(InvalidSelectorException.class, () -> MessageSelector.parse(text),
                () -> "the selector should have been refused: " + text);
    }
}
