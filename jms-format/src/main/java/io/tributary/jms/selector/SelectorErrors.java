package io.tributary.jms.selector;

import jakarta.jms.InvalidSelectorException;

/**
 * Builds the {@link InvalidSelectorException} for a selector that is refused, always in the same shape so that the
 * user can find the spot: {@code Invalid message selector at column 7: expected a string literal but found ')' in
 * "Country IN ()"}. Columns count characters (UTF-16 units) from 1.
 */
final class SelectorErrors {

    private SelectorErrors() {
    }

    static InvalidSelectorException at(String selector, int position, String problem) {
        return new InvalidSelectorException(
                "Invalid message selector at column " + (position + 1) + ": " + problem + " in \"" + selector + "\"");
    }
}
