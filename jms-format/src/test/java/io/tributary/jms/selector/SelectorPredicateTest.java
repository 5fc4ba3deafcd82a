package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.invalid;
import static io.tributary.jms.selector.SelectorTesting.matches;
import static io.tributary.jms.selector.SelectorTesting.truth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** BETWEEN, IN, LIKE and IS NULL (Jakarta Messaging 3.1 section 3.8.1.1), with their NULL and type rules. */
class SelectorPredicateTest {

    @Test
    void betweenIncludesBothBounds() {
        assertTrue(matches("x BETWEEN 1 AND 3", "x", 1));
        assertTrue(matches("x BETWEEN 1 AND 3", "x", 3));
        assertFalse(matches("x BETWEEN 1 AND 3", "x", 0));
        assertFalse(matches("x BETWEEN 3 AND 1", "x", 2));
        assertTrue(matches("x NOT BETWEEN 3 AND 1", "x", 2));
    }

    @Test
    void betweenComparesAcrossNumericTypes() {
        assertTrue(matches("x BETWEEN 15.5 AND 19", "x", 16));
        assertFalse(matches("x BETWEEN 15.5 AND 19", "x", 15L));
        assertTrue(matches("x BETWEEN 1 AND 2", "x", 1.5f));
        assertTrue(matches("x BETWEEN -1E3 AND 0x10", "x", (short) 16));
    }

    @Test
    void betweenBoundsAreArithmeticExpressions() {
        assertTrue(matches("x BETWEEN low - 1 AND high * 2", "x", 10, "low", 11, "high", 5));
        assertTrue(matches("x + 1 BETWEEN 2 AND 2", "x", 1));
        assertTrue(matches("x BETWEEN 1 AND 5 AND y = 2", "x", 3, "y", 2));
        assertTrue(matches("x BETWEEN (1) AND (5)", "x", 3));
    }

    @Test
    void betweenWithNullValueIsUnknownEitherWay() {
        assertEquals(Truth.UNKNOWN, truth("x BETWEEN 1 AND 3"));
        assertEquals(Truth.UNKNOWN, truth("x NOT BETWEEN 1 AND 3"));
    }

    /** "x BETWEEN a AND b" is "x >= a AND x <= b"; "x NOT BETWEEN a AND b" is "x < a OR x > b". */
    @Test
    void betweenWithANullBoundFollowsItsDefiningEquivalence() {
        assertEquals(Truth.FALSE, truth("x BETWEEN low AND 3", "x", 5));
        assertEquals(Truth.UNKNOWN, truth("x BETWEEN low AND 3", "x", 2));
        assertEquals(Truth.TRUE, truth("x NOT BETWEEN low AND 3", "x", 5));
        assertEquals(Truth.UNKNOWN, truth("x NOT BETWEEN low AND 3", "x", 2));
        assertEquals(Truth.FALSE, truth("x BETWEEN 1 AND high", "x", 0));
        assertEquals(Truth.TRUE, truth("x NOT BETWEEN 1 AND high", "x", 0));
    }

    @Test
    void betweenOnAValueThatIsNotANumberIsFalseAndSoIsNotBetween() {
        assertEquals(Truth.FALSE, truth("x BETWEEN 1 AND 3", "x", "2"));
        assertEquals(Truth.FALSE, truth("x NOT BETWEEN 1 AND 3", "x", "2"));
        assertEquals(Truth.FALSE, truth("x BETWEEN 1 AND 3", "x", true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"'a' BETWEEN 1 AND 2", "x BETWEEN 'a' AND 'c'", "x BETWEEN 1 AND 'c'",
            "JMSType BETWEEN 1 AND 2", "TRUE NOT BETWEEN 1 AND 2", "x BETWEEN FALSE AND TRUE"})
    void betweenOnAStringOrBooleanThatTheParserCanSeeIsRefused(String selector) {
        assertTrue(invalid(selector).getMessage().contains("BETWEEN needs a number"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"x BETWEEN 1", "x BETWEEN 1 OR 2", "x BETWEEN AND 2", "x BETWEEN 1 AND", "x NOT 1",
            "x NOT", "BETWEEN 1 AND 2"})
    void malformedBetweenIsRefused(String selector) {
        invalid(selector);
    }

    @Test
    void inIsTrueForAnEntryOfTheList() {
        assertTrue(matches("c IN ('x')", "c", "x"));
        assertTrue(matches("c IN ('x', 'y', 'z')", "c", "z"));
        assertFalse(matches("c IN ('x', 'y', 'z')", "c", "X"));
        assertTrue(matches("c IN ('x', 'x')", "c", "x"));
        assertTrue(matches("c IN ('', 'it''s')", "c", "it's"));
        assertTrue(matches("c IN ('', 'it''s')", "c", ""));
        assertTrue(matches("c NOT IN ('x', 'y')", "c", "z"));
        assertFalse(matches("c NOT IN ('x', 'y')", "c", "y"));
        assertTrue(matches("JMSType IN ('car', 'truck')", "JMSType", "truck"));
    }

    @Test
    void inWithALongListLooksTheValueUpOnce() {
        String list = IntStream.range(0, 5000).mapToObj(i -> "'v" + i + "'").collect(Collectors.joining(", "));
        assertTrue(matches("c IN (" + list + ")", "c", "v4999"));
        assertFalse(matches("c IN (" + list + ")", "c", "v5000"));
    }

    @Test
    void inWithNullIdentifierIsUnknownEitherWay() {
        assertEquals(Truth.UNKNOWN, truth("c IN ('x', 'y')"));
        assertEquals(Truth.UNKNOWN, truth("c NOT IN ('x', 'y')"));
    }

    /** IN and LIKE are defined for an identifier with a String (or NULL) value only (section 3.8.1.1). */
    @Test
    void inOnAValueThatIsNotAStringIsUnknownEitherWay() {
        assertEquals(Truth.UNKNOWN, truth("c IN ('1', '2')", "c", 1));
        assertEquals(Truth.UNKNOWN, truth("c NOT IN ('1', '2')", "c", 1));
        assertEquals(Truth.UNKNOWN, truth("c NOT IN ('a', 'b')", "c", 7L));
        assertEquals(Truth.UNKNOWN, truth("c IN ('true')", "c", true));
        assertEquals(Truth.UNKNOWN, truth("c NOT IN ('false')", "c", true));
        assertEquals(Truth.UNKNOWN, truth("c NOT LIKE 'a%'", "c", 1.5d));
        assertEquals(Truth.UNKNOWN, truth("NOT (c IN ('a'))", "c", 1));
        assertEquals(Truth.TRUE, truth("c NOT IN ('a') OR TRUE", "c", 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"c IN ()", "c IN ('x',)", "c IN (,'x')", "c IN ('x' 'y')", "c IN 'x'", "c IN ('x'",
            "c IN (1, 2)", "c IN ('x', 2)", "c IN (TRUE)", "c IN (d)", "c IN (NULL)", "c IN ('x') 'y'",
            "'x' IN ('x')", "(c) IN ('x')", "c || 'x' IN ('x')", "JMSPriority IN ('1')", "1 NOT IN ('1')"})
    void malformedInIsRefused(String selector) {
        invalid(selector);
    }

    @ParameterizedTest(name = "{1} LIKE {0} is {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "'abc'      | abc    | true", "'abc'   | abcd   | false", "'abc'   | ABC   | false",
            "''         | \"\"   | true", "''      | a      | false",
            "'%'        | \"\"   | true", "'%'     | any thing | true",
            "'_'        | a      | true", "'_'     | ''     | false", "'_'     | ab    | false",
            "'a%'       | a      | true", "'a%'    | abc    | true", "'a%'    | ba    | false",
            "'%a'       | cba    | true", "'%a'    | ab     | false",
            "'%b%'      | abc    | true", "'%b%'   | ac     | false",
            "'a_c'      | abc    | true", "'a_c'   | ac     | false", "'a_c'   | abbc  | false",
            "'a%c%e'    | abcde  | true", "'a%c%e' | aXcYcZe | true", "'a%c%e' | abce_ | false",
            "'%%'       | x      | true", "'a%%b'  | ab     | true", "'__%'   | ab     | true",
            "'__%'      | a      | false", "'%_%_%' | xy    | true", "'%ab'   | aab    | true",
            "'%aab'     | aaab   | true", "'a%b%c' | abcbc | true", "'%abc%' | ababcab | true"})
    void likeWildcards(String pattern, String value, boolean expected) {
        assertEquals(expected, matches("v LIKE " + pattern, "v", value));
        assertEquals(!expected, matches("v NOT LIKE " + pattern, "v", value));
    }

    @ParameterizedTest
    @ValueSource(strings = {".", "a.c", "a*", "[ab]", "\\d", "(x)", "^a$", "a+", "a?", "{1}", "|", "\\Q", "$1"})
    void regularExpressionMetacharactersStandForThemselves(String pattern) {
        String selector = "v LIKE '" + pattern + "'";
        assertTrue(matches(selector, "v", pattern), pattern);
        assertFalse(matches(selector, "v", "abc"), pattern);
        assertFalse(matches(selector, "v", "x" + pattern), pattern);
        assertTrue(matches("v LIKE '%" + pattern + "%'", "v", "<" + pattern + ">"), pattern);
    }

    @Test
    void wildcardsMatchLineTerminatorsToo() {
        assertTrue(matches("v LIKE 'a%b'", "v", "a\n\r\nb"));
        assertTrue(matches("v LIKE 'a_b'", "v", "a\nb"));
    }

    @Test
    void underscoreMatchesOneCharacterEvenOutsideTheBasicPlane() {
        assertTrue(matches("v LIKE 'a_b'", "v", "a\uD83D\uDE00b"));
        assertFalse(matches("v LIKE 'a__b'", "v", "a\uD83D\uDE00b"));
        assertTrue(matches("v LIKE '%\uD83D\uDE00'", "v", "xy\uD83D\uDE00"));
    }

    @Test
    void escapeTakesAwayTheMeaningOfUnderscoreAndPercent() {
        assertTrue(matches("v LIKE '100!%' ESCAPE '!'", "v", "100%"));
        assertFalse(matches("v LIKE '100!%' ESCAPE '!'", "v", "1000"));
        assertTrue(matches("v LIKE 'a!_b' ESCAPE '!'", "v", "a_b"));
        assertFalse(matches("v LIKE 'a!_b' ESCAPE '!'", "v", "axb"));
        assertTrue(matches("v LIKE '!%%!_' ESCAPE '!'", "v", "%anything_"));
        assertTrue(matches("v LIKE 'a!!b' ESCAPE '!'", "v", "a!b"));
        assertTrue(matches("v LIKE '\\%' ESCAPE '\\'", "v", "%"));
        assertTrue(matches("v LIKE 'a''_' ESCAPE ''''", "v", "a_"));
        assertTrue(matches("v LIKE 'x%_' ESCAPE '%'", "v", "x_"));
        assertFalse(matches("v LIKE 'x%_' ESCAPE '%'", "v", "xy"));
    }

    @Test
    void withoutEscapeABackslashIsAnOrdinaryCharacter() {
        assertTrue(matches("v LIKE 'a\\_'", "v", "a\\x"));
        assertFalse(matches("v LIKE 'a\\_'", "v", "a_"));
    }

    @Test
    void likeWithNullIdentifierIsUnknownEitherWay() {
        assertEquals(Truth.UNKNOWN, truth("v LIKE '%'"));
        assertEquals(Truth.UNKNOWN, truth("v NOT LIKE '%'"));
    }

    @Test
    void likeOnAValueThatIsNotAStringIsUnknownEitherWay() {
        assertEquals(Truth.UNKNOWN, truth("v LIKE '1%'", "v", 12));
        assertEquals(Truth.UNKNOWN, truth("v NOT LIKE '1%'", "v", 12));
        assertEquals(Truth.UNKNOWN, truth("v LIKE 'true'", "v", true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"v LIKE 'a' ESCAPE ''", "v LIKE 'a' ESCAPE 'ab'", "v LIKE 'a' ESCAPE '\\\\'"})
    void escapeMustBeASingleCharacter(String selector) {
        assertTrue(invalid(selector).getMessage().contains("ESCAPE takes a single-character string literal"));
    }

    @Test
    void escapeMayBeOneCharacterOutsideTheBasicPlane() {
        assertTrue(matches("v LIKE '\uD83D\uDE00%' ESCAPE '\uD83D\uDE00'", "v", "%"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"v LIKE 'a!b' ESCAPE '!'", "v LIKE 'ab!' ESCAPE '!'", "v LIKE '!' ESCAPE '!'"})
    void escapeMustPrecedeAWildcardOrItself(String selector) {
        assertTrue(invalid(selector).getMessage().contains("it may only precede '_', '%' or itself"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"5 LIKE '5'", "'a' LIKE 'a'", "v LIKE w", "v LIKE 5", "v LIKE", "v LIKE 'a' ESCAPE",
            "v LIKE 'a' ESCAPE 1", "v LIKE 'a' ESCAPE '!' ESCAPE '!'", "(v) LIKE 'a'", "v + 1 LIKE '2'",
            "JMSPriority LIKE '4'", "JMSTimestamp NOT LIKE '1%'", "v LIKE ('a')", "v LIKE 'a' || 'b'"})
    void malformedLikeIsRefused(String selector) {
        invalid(selector);
    }

    @Test
    void isNullIsTrueOnlyForAnAbsentValue() {
        assertEquals(Truth.TRUE, truth("v IS NULL"));
        assertEquals(Truth.FALSE, truth("v IS NULL", "v", ""));
        assertEquals(Truth.FALSE, truth("v IS NULL", "v", 0));
        assertEquals(Truth.FALSE, truth("v IS NULL", "v", false));
        assertEquals(Truth.FALSE, truth("v IS NOT NULL"));
        assertEquals(Truth.TRUE, truth("v IS NOT NULL", "v", false));
        assertEquals(Truth.TRUE, truth("v IS NOT NULL", "v", Double.NaN));
    }

    @Test
    void isNullTurnsUnknownIntoAnAnswer() {
        assertTrue(matches("v IS NULL OR v > 3"));
        assertTrue(matches("v IS NULL OR v > 3", "v", 4));
        assertFalse(matches("v IS NULL OR v > 3", "v", 2));
    }

    @ParameterizedTest
    @ValueSource(strings = {"v = NULL", "v <> NULL", "NULL IS NULL", "v IS 1", "v IS", "v IS NOT", "v IS NOT 'x'",
            "1 IS NULL", "'x' IS NOT NULL", "(v) IS NULL", "v + 1 IS NULL", "v IS NULL NULL", "v NOT NULL",
            "v ISNULL", "v IN ('a', NULL)"})
    void malformedNullTestsAreRefused(String selector) {
        invalid(selector);
    }

    @Test
    void comparingWithTheNullKeywordPointsToIsNull() {
        assertTrue(invalid("v = NULL").getMessage().contains("test for it with IS NULL or IS NOT NULL"));
    }
}
