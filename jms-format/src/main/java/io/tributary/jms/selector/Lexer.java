package io.tributary.jms.selector;

import jakarta.jms.InvalidSelectorException;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a selector into {@link Token}s, following Jakarta Messaging 3.1 section 3.8.1.1:
 * <ul>
 *   <li>string literals in single quotes, a quote inside doubled ({@code 'literal''s'});</li>
 *   <li>exact numeric literals in Java integer literal syntax: decimal, hexadecimal {@code 0x1F}, octal {@code 017},
 *       an optional {@code L} suffix. The binary form and underscores, which Java 7 added long after this part of
 *       the specification was written, are refused rather than guessed at;</li>
 *   <li>approximate numeric literals in Java floating-point syntax: {@code 7E3}, {@code 7.}, {@code .5},
 *       {@code 95.7}, optional {@code F}/{@code D} suffix (hexadecimal floating point is refused);</li>
 *   <li>identifiers made of Java identifier characters, and the reserved words, which are case-insensitive;</li>
 *   <li>whitespace as in Java: space, tab, form feed, carriage return, line feed.</li>
 * </ul>
 * A sign is never part of a numeric token; the parser applies it. Called once per selector, on the parsing thread.
 */
final class Lexer {

    private static final BigInteger MAX_UNSIGNED_LONG = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private final String selector;
    private int position;

    private Lexer(String selector) {
        this.selector = selector;
    }

    /** All tokens of the selector, the last one always {@link TokenKind#END}. */
    static List<Token> tokenize(String selector) throws InvalidSelectorException {
        Lexer lexer = new Lexer(selector);
        List<Token> tokens = new ArrayList<>();
        Token token;
        do {
            token = lexer.next();
            tokens.add(token);
        } while (token.kind() != TokenKind.END);
        return tokens;
    }

    private Token next() throws InvalidSelectorException {
        skipWhitespace();
        if (position >= selector.length()) {
            return new Token(TokenKind.END, "", position, null);
        }
        int start = position;
        char c = selector.charAt(position);
        switch (c) {
            case '\'':
                return string();
            case '(':
                return symbol(TokenKind.LEFT_PAREN, 1);
            case ')':
                return symbol(TokenKind.RIGHT_PAREN, 1);
            case ',':
                return symbol(TokenKind.COMMA, 1);
            case '+':
                return symbol(TokenKind.PLUS, 1);
            case '-':
                return symbol(TokenKind.MINUS, 1);
            case '*':
                return symbol(TokenKind.TIMES, 1);
            case '/':
                return symbol(TokenKind.DIVIDE, 1);
            case '=':
                return symbol(TokenKind.EQUAL, 1);
            case '<':
                if (peek(1) == '>') {
                    return symbol(TokenKind.NOT_EQUAL, 2);
                }
                return peek(1) == '=' ? symbol(TokenKind.LESS_OR_EQUAL, 2) : symbol(TokenKind.LESS, 1);
            case '>':
                return peek(1) == '=' ? symbol(TokenKind.GREATER_OR_EQUAL, 2) : symbol(TokenKind.GREATER, 1);
            case '!':
                throw SelectorErrors.at(selector, start,
                        peek(1) == '=' ? "'!=' is not a selector operator, use '<>'" : "unexpected character '!'");
            case '"':
                throw SelectorErrors.at(selector, start,
                        "unexpected character '\"' (string literals are enclosed in single quotes)");
            default:
                break;
        }
        if (c >= '0' && c <= '9' || c == '.' && isDigit(peek(1))) {
            return number();
        }
        int codePoint = selector.codePointAt(position);
        if (Character.isJavaIdentifierStart(codePoint)) {
            return word();
        }
        throw SelectorErrors.at(selector, start,
                "unexpected character '" + new String(Character.toChars(codePoint)) + "' (U+"
                        + String.format("%04X", codePoint) + ")");
    }

    private void skipWhitespace() {
        while (position < selector.length()) {
            char c = selector.charAt(position);
            if (c != ' ' && c != '\t' && c != '\f' && c != '\n' && c != '\r') {
                return;
            }
            position++;
        }
    }

    private char peek(int ahead) {
        int at = position + ahead;
        return at < selector.length() ? selector.charAt(at) : '\0';
    }

    private Token symbol(TokenKind kind, int length) {
        Token token = new Token(kind, selector.substring(position, position + length), position, null);
        position += length;
        return token;
    }

    private Token string() throws InvalidSelectorException {
        int start = position;
        StringBuilder value = new StringBuilder();
        position++;
        while (true) {
            if (position >= selector.length()) {
                throw SelectorErrors.at(selector, start, "unterminated string literal (a string ends with ')");
            }
            char c = selector.charAt(position++);
            if (c == '\'') {
                if (peek(0) != '\'') {
                    break;
                }
                position++;
            }
            value.append(c);
        }
        return new Token(TokenKind.STRING, selector.substring(start, position), start, value.toString());
    }

    private Token word() {
        int start = position;
        position += Character.charCount(selector.codePointAt(position));
        while (position < selector.length()) {
            int codePoint = selector.codePointAt(position);
            if (!Character.isJavaIdentifierPart(codePoint)) {
                break;
            }
            position += Character.charCount(codePoint);
        }
        String text = selector.substring(start, position);
        TokenKind keyword = TokenKind.keyword(text);
        return new Token(keyword == null ? TokenKind.IDENTIFIER : keyword, text, start, null);
    }

    private Token number() throws InvalidSelectorException {
        int start = position;
        if (peek(0) == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
            position += 2;
            int digits = position;
            while (isHexDigit(peek(0))) {
                position++;
            }
            if (position == digits) {
                throw malformedNumber(start);
            }
            return exact(start, digits, 16);
        }
        skipDigits();
        boolean approximate = false;
        if (peek(0) == '.') {
            approximate = true;
            position++;
            skipDigits();
        }
        if (peek(0) == 'e' || peek(0) == 'E') {
            approximate = true;
            position++;
            if (peek(0) == '+' || peek(0) == '-') {
                position++;
            }
            int exponent = position;
            skipDigits();
            if (position == exponent) {
                throw malformedNumber(start);
            }
        }
        char suffix = peek(0);
        if (suffix == 'f' || suffix == 'F' || suffix == 'd' || suffix == 'D') {
            position++;
            return approximate(start, suffix == 'f' || suffix == 'F');
        }
        if (approximate) {
            return approximate(start, false);
        }
        if (selector.charAt(start) == '0' && position - start > 1) {
            for (int i = start + 1; i < position; i++) {
                if (selector.charAt(i) > '7') {
                    throw SelectorErrors.at(selector, start, "malformed number "
                            + selector.substring(start, position) + " (a leading 0 makes an octal literal)");
                }
            }
            return exact(start, start + 1, 8);
        }
        return exact(start, start, 10);
    }

    private void skipDigits() {
        while (isDigit(peek(0))) {
            position++;
        }
    }

    /** ASCII only, as in Java source: {@code Character.isDigit} would also take Arabic-Indic or fullwidth digits. */
    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isHexDigit(char c) {
        return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private Token exact(int start, int digitsStart, int radix) throws InvalidSelectorException {
        BigInteger magnitude = new BigInteger(selector.substring(digitsStart, position), radix);
        boolean longSuffix = peek(0) == 'l' || peek(0) == 'L';
        if (longSuffix) {
            position++;
        }
        rejectTrailingIdentifierCharacter(start);
        if (magnitude.compareTo(MAX_UNSIGNED_LONG) > 0) {
            throw SelectorErrors.at(selector, start,
                    "number " + selector.substring(start, position) + " is outside the range of a Java long");
        }
        return new Token(TokenKind.EXACT_NUMBER, selector.substring(start, position), start,
                new Token.ExactNumber(magnitude, radix, longSuffix));
    }

    private Token approximate(int start, boolean isFloat) throws InvalidSelectorException {
        rejectTrailingIdentifierCharacter(start);
        String text = selector.substring(start, position);
        // Float.parseFloat and Double.parseDouble accept exactly the Java decimal floating-point literal syntax
        // that the scan above has already checked, suffix included.
        Object value = isFloat ? (Object) Float.parseFloat(text) : (Object) Double.parseDouble(text);
        if (isFloat ? ((Float) value).isInfinite() : ((Double) value).isInfinite()) {
            throw SelectorErrors.at(selector, start, "number " + text + " is outside the range of a Java "
                    + (isFloat ? "float" : "double"));
        }
        return new Token(TokenKind.APPROXIMATE_NUMBER, text, start, value);
    }

    /** {@code 12abc}, {@code 0x1p3}, {@code 0b101} and {@code 1_000} are one malformed number, not two tokens. */
    private void rejectTrailingIdentifierCharacter(int start) throws InvalidSelectorException {
        if (position < selector.length() && Character.isJavaIdentifierPart(selector.codePointAt(position))) {
            throw malformedNumber(start);
        }
    }

    private InvalidSelectorException malformedNumber(int start) {
        int end = position;
        while (end < selector.length() && (Character.isJavaIdentifierPart(selector.charAt(end))
                || selector.charAt(end) == '.')) {
            end++;
        }
        return SelectorErrors.at(selector, start, "malformed number " + selector.substring(start, end));
    }
}
