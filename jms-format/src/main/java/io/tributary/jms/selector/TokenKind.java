package io.tributary.jms.selector;

import java.util.Locale;

/**
 * The kinds of token of a message selector (Jakarta Messaging 3.1 section 3.8.1.1). The keywords are the words that
 * the specification reserves: they are case-insensitive and can never be identifiers.
 */
enum TokenKind {
    IDENTIFIER, STRING, EXACT_NUMBER, APPROXIMATE_NUMBER,

    AND, OR, NOT, BETWEEN, LIKE, IN, IS, ESCAPE, NULL, TRUE, FALSE,

    EQUAL, NOT_EQUAL, LESS, LESS_OR_EQUAL, GREATER, GREATER_OR_EQUAL,
    PLUS, MINUS, TIMES, DIVIDE, LEFT_PAREN, RIGHT_PAREN, COMMA,

    END;

    boolean isKeyword() {
        return compareTo(AND) >= 0 && compareTo(FALSE) <= 0;
    }

    /**
     * The keyword spelled by an identifier-shaped word, or {@code null}. Only ASCII letters fold: with
     * {@code toUpperCase}, the Turkish dotless "ın" would become the keyword IN and stop being usable as a
     * property name.
     */
    static TokenKind keyword(String word) {
        if (word.length() < 2 || word.length() > 7) {
            return null;
        }
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')) {
                return null;
            }
        }
        return switch (word.toUpperCase(Locale.ROOT)) {
            case "AND" -> AND;
            case "OR" -> OR;
            case "NOT" -> NOT;
            case "BETWEEN" -> BETWEEN;
            case "LIKE" -> LIKE;
            case "IN" -> IN;
            case "IS" -> IS;
            case "ESCAPE" -> ESCAPE;
            case "NULL" -> NULL;
            case "TRUE" -> TRUE;
            case "FALSE" -> FALSE;
            default -> null;
        };
    }
}
