package io.tributary.jms.selector;

import java.math.BigInteger;
import java.util.Locale;

/**
 * One token of a selector.
 *
 * @param kind     what the token is
 * @param text     the characters of the selector that make the token, exactly as written
 * @param position offset of the token's first character in the selector, from 0
 * @param value    for {@link TokenKind#STRING} the string without quotes and with doubled quotes undone; for
 *                 {@link TokenKind#EXACT_NUMBER} an {@link ExactNumber}; for {@link TokenKind#APPROXIMATE_NUMBER}
 *                 a {@code Double} or {@code Float}; otherwise {@code null}
 */
record Token(TokenKind kind, String text, int position, Object value) {

    /**
     * An exact numeric literal as written: its sign is applied by the parser, because Java allows
     * {@code 2147483648} and {@code 9223372036854775808} only after a unary minus.
     *
     * @param magnitude  the digits' value, never negative
     * @param radix      10, 16 ({@code 0x}) or 8 (leading {@code 0})
     * @param longSuffix whether the literal ends in {@code L} or {@code l}
     */
    record ExactNumber(BigInteger magnitude, int radix, boolean longSuffix) {
    }

    /** How the token reads in an error message. */
    String describe() {
        return switch (kind) {
            case END -> "the end of the selector";
            case IDENTIFIER -> "identifier " + text;
            case STRING -> "string literal " + text;
            case EXACT_NUMBER, APPROXIMATE_NUMBER -> "number " + text;
            default -> kind.isKeyword() ? "keyword " + text.toUpperCase(Locale.ROOT) : "'" + text + "'";
        };
    }
}
