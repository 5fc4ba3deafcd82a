package io.tributary.jms.selector;

/**
 * The three truth values of SQL92 logic, which selectors use (Jakarta Messaging 3.1 section 3.8.1.2, tables 3-4 to
 * 3-6). {@code UNKNOWN} is what a comparison with a NULL value yields; a selector matches only when it is
 * {@code TRUE}.
 */
enum Truth {
    TRUE, FALSE, UNKNOWN;

    static Truth of(boolean value) {
        return value ? TRUE : FALSE;
    }

    /** A selector value as a truth value: a Boolean is TRUE or FALSE; NULL and any other type are UNKNOWN. */
    static Truth ofValue(Object value) {
        return value instanceof Boolean b ? of(b.booleanValue()) : UNKNOWN;
    }

    /** Table 3-4: FALSE wins, then UNKNOWN. */
    Truth and(Truth other) {
        if (this == FALSE || other == FALSE) {
            return FALSE;
        }
        return this == TRUE && other == TRUE ? TRUE : UNKNOWN;
    }

    /** Table 3-5: TRUE wins, then UNKNOWN. */
    Truth or(Truth other) {
        if (this == TRUE || other == TRUE) {
            return TRUE;
        }
        return this == FALSE && other == FALSE ? FALSE : UNKNOWN;
    }

    /** Table 3-6: UNKNOWN stays UNKNOWN. */
    Truth not() {
        return switch (this) {
            case TRUE -> FALSE;
            case FALSE -> TRUE;
            case UNKNOWN -> UNKNOWN;
        };
    }

    /** As a selector value: {@code Boolean.TRUE}, {@code Boolean.FALSE}, or {@code null} for UNKNOWN. */
    Boolean toBoolean() {
        return switch (this) {
            case TRUE -> Boolean.TRUE;
            case FALSE -> Boolean.FALSE;
            case UNKNOWN -> null;
        };
    }
}
