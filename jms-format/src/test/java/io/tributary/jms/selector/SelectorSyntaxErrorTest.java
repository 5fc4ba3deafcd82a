package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.invalid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.jms.InvalidSelectorException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Selectors that must be refused with an {@link InvalidSelectorException} (Jakarta Messaging 3.1 section 3.8.1.1),
 * whose message names the column of the problem and what was expected there.
 */
class SelectorSyntaxErrorTest {

    @Test
    void messageNamesColumnExpectationAndSelector() {
        InvalidSelectorException e = invalid("Country IN ()");
        assertEquals("Invalid message selector at column 13: expected a string literal (the list of IN holds one or "
                + "more string literals) but found ')' in \"Country IN ()\"", e.getMessage());
    }

    @Test
    void doubleQuotesAreNotStringDelimiters() {
        String message = invalid("c = \"x\"").getMessage();
        assertTrue(message.startsWith("Invalid message selector at column 5: unexpected character '\"' (string "
                + "literals are enclosed in single quotes)"), message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            // unbalanced parentheses
            "(a = 1                 | 7  | expected ')' to close the '(' at column 1 but found the end of the selector",
            "((a = 1) OR (b = 2)    | 20 | expected ')' to close the '(' at column 1",
            "a = 1)                 | 6  | expected AND, OR or the end of the selector but found ')'",
            "()                     | 2  | expected an expression but found ')'",
            "a = (1 + 2             | 11 | expected ')' to close the '(' at column 5",
            // trailing tokens
            "a = 1 b                | 7  | expected AND, OR or the end of the selector but found identifier b",
            "a = 1 'x'              | 7  | but found string literal 'x'",
            "a = 1 + 2 3            | 11 | but found number 3",
            "a = 1 AND              | 10 | expected an expression but found the end of the selector",
            "AND a = 1              | 1  | (reserved words cannot be identifiers) but found keyword AND",
            "a = 1 OR OR b          | 10 | found keyword OR",
            "a =                    | 4  | expected an expression but found the end of the selector",
            "= 1                    | 1  | expected an expression but found '='",
            "a 1                    | 3  | expected AND, OR or the end of the selector but found number 1",
            "'abc' 'def'            | 7  | expected an operator or the end of the selector",
            // IN lists
            "c IN ()                | 7  | expected a string literal",
            "c IN ('a',)            | 11 | expected a string literal",
            "c IN ('a' 'b')         | 11 | expected ',' or ')' to close the list of IN but found string literal 'b'",
            "c NOT IN 'a'           | 10 | expected '(' to open the list of NOT IN",
            "c IN (1)               | 7  | holds one or more string literals) but found number 1",
            "1 IN ('1')             | 1  | IN applies to an identifier, but found 1",
            // LIKE and ESCAPE
            "c LIKE 'a' ESCAPE 'ab' | 19 | ESCAPE takes a single-character string literal, but 'ab' has 2 characters",
            "c LIKE 'a' ESCAPE ''   | 19 | ESCAPE takes a single-character string literal, but '' has 0 characters",
            "c LIKE 'a!' ESCAPE '!' | 8  | the escape character '!' ends the pattern",
            "c LIKE 'a!b' ESCAPE '!' | 8 | the escape character '!' is followed by 'b'",
            "c LIKE d               | 8  | expected a string literal pattern after LIKE but found identifier d",
            "7 LIKE '7'             | 1  | LIKE applies to an identifier, but found 7",
            "c NOT LIKE 5           | 12 | expected a string literal pattern after NOT LIKE but found number 5",
            // strings and characters
            "c = 'abc               | 5  | unterminated string literal",
            "c = 'it''s             | 5  | unterminated string literal",
            "c = '                  | 5  | unterminated string literal",
            "c != 1                 | 3  | '!=' is not a selector operator, use '<>'",
            "c = 1 & d = 2          | 7  | unexpected character '&'",
            "c == 1                 | 4  | expected an expression but found '='",
            // reserved words and header fields
            "like = 1               | 1  | found keyword LIKE",
            "a = 1 AND Escape = 2   | 11 | found keyword ESCAPE",
            "null IS NULL           | 1  | NULL is not a value",
            "JMSDestination = 'q'   | 1  | JMSDestination cannot be used in a message selector",
            "a = 1 OR JMSReplyTo IS NULL | 10 | JMSReplyTo cannot be used in a message selector",
            "JMSRedelivered         | 1  | JMSRedelivered cannot be used in a message selector",
            "JMSExpiration > 0      | 1  | JMSExpiration cannot be used in a message selector",
            "JMSDeliveryTime > 0    | 1  | JMSDeliveryTime cannot be used in a message selector",
            // types the parser can see
            "NOT 'x'                | 5  | NOT needs a conditional expression, but 'x' is a string",
            "'abc' + 1 = 2          | 1  | '+' needs a number, but 'abc' is a string",
            "a + 1                  | 1  | a selector needs a conditional expression, but (a + 1) is a number",
            "a < 'b'                | 5  | '<' compares numbers, but 'b' is a string",
            "JMSPriority = 'high'   | 1  | but JMSPriority is a number and 'high' is a string",
            "a = b = c              | 7  | a comparison cannot be compared again with '='",
            // numbers
            "a = 12abc              | 5  | malformed number 12abc",
            "a = 09                 | 5  | malformed number 09 (a leading 0 makes an octal literal)",
            "a = 0x                 | 5  | malformed number 0x",
            "a = 9223372036854775808 | 5 | number 9223372036854775808 is outside the range of a Java long",
            "a = 1e999              | 5  | number 1e999 is outside the range of a Java double",
            // IS and NOT
            "a IS 1                 | 6  | expected NULL or NOT NULL after IS but found number 1",
            "a IS NOT 'x'           | 10 | expected NULL after IS NOT",
            "a NOT = 1              | 7  | expected BETWEEN, IN or LIKE after NOT but found '='",
            "a BETWEEN 1 OR 2       | 13 | expected AND between the bounds of BETWEEN but found keyword OR"})
    void refusedSelectorsSayWhereAndWhat(String selector, int column, String expected) {
        String message = invalid(selector).getMessage();
        assertTrue(message.startsWith("Invalid message selector at column " + column + ": "), message);
        assertTrue(message.contains(expected), message);
        assertTrue(message.endsWith(" in \"" + selector + "\""), message);
    }
}
