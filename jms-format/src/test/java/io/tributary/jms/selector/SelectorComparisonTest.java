package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.invalid;
import static io.tributary.jms.selector.SelectorTesting.matches;
import static io.tributary.jms.selector.SelectorTesting.truth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Comparison operators (Jakarta Messaging 3.1 section 3.8.1.1): numbers of every type compare after Java numeric
 * promotion; strings and booleans only with = and &lt;&gt;; values of unlike types compare FALSE; NULL gives UNKNOWN.
 */
class SelectorComparisonTest {

    private static final List<Object> FIVES = List.of((byte) 5, (short) 5, 5, 5L, 5.0f, 5.0);
    private static final List<Object> SIXES = List.of((byte) 6, (short) 6, 6, 6L, 6.0f, 6.0);

    /** Every pairing of numeric types, every operator: the reference is the comparison of the two ints. */
    @Test
    void everyNumericTypeComparesWithEveryOtherByValue() {
        String[] operators = {"=", "<>", "<", "<=", ">", ">="};
        for (Object left : FIVES) {
            for (List<Object> rights : List.of(FIVES, SIXES)) {
                for (Object right : rights) {
                    int l = 5;
                    int r = ((Number) right).intValue();
                    boolean[] expected = {l == r, l != r, l < r, l <= r, l > r, l >= r};
                    for (int i = 0; i < operators.length; i++) {
                        String selector = "a " + operators[i] + " b";
                        assertEquals(expected[i], matches(selector, "a", left, "b", right),
                                left.getClass().getSimpleName() + " " + left + " " + operators[i] + " "
                                        + right.getClass().getSimpleName() + " " + right);
                        assertEquals(expected[i] ? Truth.TRUE : Truth.FALSE, truth(selector, "a", left, "b", right));
                    }
                }
            }
        }
    }

    @Test
    void exactAndApproximateNumbersCompareAfterPromotion() {
        assertTrue(matches("n = 5.0", "n", 5));
        assertTrue(matches("n < 5.5", "n", 5L));
        assertTrue(matches("x > 5", "x", 5.5));
        assertFalse(matches("x = 5", "x", 5.5f));
        assertTrue(matches("x >= 5", "x", 5.0f));
        assertTrue(matches("n = 1E0", "n", (byte) 1));
    }

    @Test
    void longAndDoubleCompareAsDoublesAsInJava() {
        // (double) Long.MAX_VALUE == 9.223372036854775807E18 == 2^63: Java says equal, and so do selectors.
        assertTrue(matches("l = 9.223372036854775807E18", "l", Long.MAX_VALUE));
        assertTrue(matches("l = 9223372036854775807", "l", Long.MAX_VALUE));
        assertFalse(matches("l = 9223372036854775806", "l", Long.MAX_VALUE));
    }

    @Test
    void stringsAreEqualWhenTheyHoldTheSameCharacters() {
        assertTrue(matches("s = 'abc'", "s", "abc"));
        assertFalse(matches("s = 'abc'", "s", "ABC"));
        assertFalse(matches("s = 'abc'", "s", "abc "));
        assertTrue(matches("s <> 'abc'", "s", "abd"));
        assertFalse(matches("s <> 'abc'", "s", "abc"));
        assertTrue(matches("s = t", "s", "same", "t", new String("same")));
        assertTrue(matches("'abc' = 'abc'"));
        assertTrue(matches("'abc' <> 'ABC'"));
    }

    @Test
    void booleansCompareWithEqualsAndNotEquals() {
        assertTrue(matches("flag = TRUE", "flag", true));
        assertTrue(matches("flag <> TRUE", "flag", false));
        assertTrue(matches("flag = FALSE", "flag", false));
        assertTrue(matches("a = b", "a", true, "b", true));
        assertTrue(matches("a <> b", "a", true, "b", false));
        assertTrue(matches("TRUE <> FALSE"));
        assertTrue(matches("(n > 1) = TRUE", "n", 2));
        assertEquals(Truth.UNKNOWN, truth("(n > 1) = TRUE"));
    }

    @Test
    void orderingStringsOrBooleansHeldByIdentifiersIsFalse() {
        assertEquals(Truth.FALSE, truth("a < b", "a", "a", "b", "b"));
        assertEquals(Truth.FALSE, truth("a >= b", "a", "b", "b", "a"));
        assertEquals(Truth.FALSE, truth("a > b", "a", true, "b", false));
        assertEquals(Truth.FALSE, truth("a <= b", "a", true, "b", true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"s < 'abc'", "'a' < 'b'", "s >= 'x'", "flag > TRUE", "FALSE <= flag", "JMSType < 'x'",
            "s > JMSCorrelationID", "(a = 1) < TRUE", "JMSDeliveryMode >= 'PERSISTENT'"})
    void orderingAStringOrBooleanThatTheParserCanSeeIsRefused(String selector) {
        String message = invalid(selector).getMessage();
        assertTrue(message.contains("compares numbers"), message);
    }

    /**
     * Section 3.8.1.1: "If the comparison of non-like type values is attempted, the value of the operation is
     * false."
     */
    @Test
    void comparingValuesOfUnlikeTypesIsFalseNotUnknown() {
        assertEquals(Truth.FALSE, truth("s = 1", "s", "1"));
        assertEquals(Truth.FALSE, truth("s <> 1", "s", "1"));
        assertEquals(Truth.FALSE, truth("s > 0", "s", "1"));
        assertEquals(Truth.FALSE, truth("n = '1'", "n", 1));
        assertEquals(Truth.FALSE, truth("flag = 1", "flag", true));
        assertEquals(Truth.FALSE, truth("n = TRUE", "n", 1));
        assertEquals(Truth.FALSE, truth("s = TRUE", "s", "true"));
        assertEquals(Truth.FALSE, truth("a = b", "a", "5", "b", 5));
        assertTrue(matches("NOT (s = 1)", "s", "1"));
    }

    @Test
    void valuesOfTypesSelectorsDoNotKnowNeverCompareAndNeverThrow() {
        for (Object odd : List.of(BigDecimal.ONE, 'c', new Object(), new int[] {1}, List.of("x"))) {
            assertEquals(Truth.FALSE, truth("v = 1", "v", odd), odd.getClass().getName());
            assertEquals(Truth.FALSE, truth("v = 'c'", "v", odd));
            assertEquals(Truth.FALSE, truth("v = v", "v", odd));
            assertEquals(Truth.FALSE, truth("v < 2", "v", odd));
            assertEquals(Truth.UNKNOWN, truth("v", "v", odd));
            assertEquals(Truth.TRUE, truth("v IS NOT NULL", "v", odd));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"'1' = 1", "1 <> '1'", "TRUE = 1", "'true' = TRUE", "JMSPriority = '4'",
            "JMSDeliveryMode = 2", "JMSTimestamp = JMSType", "(a > 1) = 1", "1 + 1 = 'two'"})
    void comparingUnlikeTypesThatTheParserCanSeeIsRefused(String selector) {
        String message = invalid(selector).getMessage();
        assertTrue(message.contains("compares values of one type"), message);
    }

    @Test
    void comparisonWithNullIsUnknown() {
        for (String operator : List.of("=", "<>", "<", "<=", ">", ">=")) {
            assertEquals(Truth.UNKNOWN, truth("missing " + operator + " 1"), operator);
            assertEquals(Truth.UNKNOWN, truth("1 " + operator + " missing"), operator);
            assertEquals(Truth.UNKNOWN, truth("missing " + operator + " other"), operator);
        }
        assertEquals(Truth.UNKNOWN, truth("missing = 'x'"));
        assertEquals(Truth.UNKNOWN, truth("missing <> TRUE"));
    }

    @Test
    void nanEqualsNothingAsInJava() {
        assertEquals(Truth.FALSE, truth("x = x", "x", Double.NaN));
        assertEquals(Truth.TRUE, truth("x <> x", "x", Double.NaN));
        assertEquals(Truth.FALSE, truth("x = x", "x", Float.NaN));
        assertEquals(Truth.FALSE, truth("x > 0 OR x <= 0", "x", Double.NaN));
    }

    @Test
    void positiveAndNegativeZeroAreEqualAsInJava() {
        assertTrue(matches("x = 0", "x", -0.0));
        assertTrue(matches("x = -0.0", "x", 0.0f));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a = b = c", "a < b < c", "1 = 1 = TRUE", "a <> b = c"})
    void comparisonsDoNotChain(String selector) {
        assertTrue(invalid(selector).getMessage().contains("a comparison cannot be compared again"));
    }
}
