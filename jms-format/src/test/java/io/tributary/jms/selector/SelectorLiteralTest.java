package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.invalid;
import static io.tributary.jms.selector.SelectorTesting.matches;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Literals of Jakarta Messaging 3.1 section 3.8.1.1: strings, exact and approximate numbers, booleans. */
class SelectorLiteralTest {

    @Test
    void doubledSingleQuoteStandsForOneQuote() {
        assertTrue(matches("name = 'literal''s'", "name", "literal's"));
        assertTrue(matches("name = ''''", "name", "'"));
        assertTrue(matches("name = 'a''''b'", "name", "a''b"));
        assertFalse(matches("name = 'literal''s'", "name", "literal''s"));
    }

    @Test
    void emptyStringLiteralIsTheEmptyString() {
        assertTrue(matches("name = ''", "name", ""));
        assertFalse(matches("name = ''"));
    }

    @Test
    void stringLiteralsHoldAnyUnicodeAndSelectorSyntaxVerbatim() {
        assertTrue(matches("city = 'Zürich'", "city", "Zürich"));
        assertTrue(matches("mood = '\uD83D\uDE00 ok'", "mood", "\uD83D\uDE00 ok"));
        assertTrue(matches("expr = 'a = 1 AND b OR (c)'", "expr", "a = 1 AND b OR (c)"));
        assertTrue(matches("text = 'two\nlines'", "text", "two\nlines"));
        assertTrue(matches("path = 'C:\\temp'", "path", "C:\\temp"));
    }

    @ParameterizedTest(name = "{0} is the int {1}")
    @CsvSource(delimiter = '|', value = {
            "57 | 57", "-957 | -957", "+62 | 62", "0 | 0", "-0 | 0",
            "2147483647 | 2147483647", "-2147483648 | -2147483648",
            "0x1F | 31", "0X1f | 31", "0xFFFFFFFF | -1", "-0x1 | -1", "017 | 15", "00 | 0"})
    void exactLiteralsInJavaIntegerSyntax(String literal, int expected) {
        assertTrue(matches("n = " + literal, "n", expected));
        assertFalse(matches("n = " + literal, "n", expected + 1));
    }

    @ParameterizedTest(name = "{0} is the long {1}")
    @CsvSource(delimiter = '|', value = {
            "2147483648 | 2147483648", "-2147483649 | -2147483649", "3000000000 | 3000000000",
            "9223372036854775807 | 9223372036854775807", "-9223372036854775808 | -9223372036854775808",
            "5L | 5", "5l | 5", "0xFFFFFFFFL | 4294967295", "0x100000000 | 4294967296",
            "0xFFFFFFFFFFFFFFFF | -1", "0x7FFFFFFFFFFFFFFF | 9223372036854775807", "0777777777777L | 68719476735"})
    void exactLiteralsInTheRangeOfLong(String literal, long expected) {
        assertTrue(matches("n = " + literal, "n", expected));
        assertFalse(matches("n = " + literal, "n", expected - 1));
    }

    @Test
    void exactLiteralBeyondIntRangeComparesWithIntValuesAsALong() {
        assertFalse(matches("n > 2147483647", "n", Integer.MAX_VALUE));
        assertTrue(matches("n > 2147483647", "n", 2_147_483_648L));
        assertTrue(matches("n < 3000000000", "n", Integer.MAX_VALUE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"9223372036854775808", "-9223372036854775809", "99999999999999999999",
            "0x1FFFFFFFFFFFFFFFF", "9223372036854775808L"})
    void exactLiteralsOutsideTheRangeOfLongAreRefused(String literal) {
        assertTrue(invalid("n = " + literal).getMessage().contains("outside the range of a Java long"));
    }

    @ParameterizedTest(name = "{0} is the double {1}")
    @CsvSource(delimiter = '|', value = {
            "7E3 | 7000", "7e3 | 7000", "-57.9E2 | -5790", "7. | 7", "-95.7 | -95.7", "+6.2 | 6.2",
            ".5 | 0.5", "1e-3 | 0.001", "1E+2 | 100", "2.5d | 2.5", "2.5D | 2.5", "7.E1 | 70", "08.5 | 8.5",
            "1.7976931348623157E308 | 1.7976931348623157E308", "4.9E-324 | 4.9E-324"})
    void approximateLiteralsInJavaFloatingPointSyntax(String literal, double expected) {
        assertTrue(matches("x = " + literal, "x", expected));
        assertFalse(matches("x = " + literal, "x", expected * 2 + 1));
    }

    @Test
    void approximateLiteralEqualsTheExactValueItDenotes() {
        assertTrue(matches("n = 7E3", "n", 7000));
        assertTrue(matches("n = 7000.0", "n", 7000L));
    }

    @Test
    void floatSuffixMakesAFloatLiteralAsInJava() {
        assertTrue(matches("f = 0.1F", "f", 0.1f));
        assertTrue(matches("f = 0.1f", "f", 0.1f));
        // As in Java, (double) 0.1f != 0.1.
        assertFalse(matches("f = 0.1", "f", 0.1f));
        assertTrue(matches("f = 2.5", "f", 2.5f));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e400", "-1e400", "1e39f"})
    void approximateLiteralsOutsideTheirRangeAreRefused(String literal) {
        assertTrue(invalid("x = " + literal).getMessage().contains("outside the range"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"12abc", "1e", "1e+", "0x", "0xG1", "0b101", "1_000", "0x1p3", "08", "09", "1.2.3e", "5LL",
            "0x\u0661"})
    void malformedNumbersAreRefused(String literal) {
        String message = invalid("x = " + literal).getMessage();
        assertTrue(message.contains("malformed number"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TRUE", "true", "True", "tRuE"})
    void trueLiteralIsCaseInsensitive(String literal) {
        assertTrue(matches(literal));
        assertTrue(matches("flag = " + literal, "flag", true));
        assertFalse(matches("flag = " + literal, "flag", false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"FALSE", "false", "False"})
    void falseLiteralIsCaseInsensitive(String literal) {
        assertFalse(matches(literal));
        assertTrue(matches("NOT " + literal));
        assertTrue(matches("flag = " + literal, "flag", false));
    }
}
