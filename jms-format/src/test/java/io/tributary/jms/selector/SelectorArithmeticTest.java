package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.invalid;
import static io.tributary.jms.selector.SelectorTesting.matches;
import static io.tributary.jms.selector.SelectorTesting.truth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Arithmetic (Jakarta Messaging 3.1 section 3.8.1.1): unary sign binds tightest, then * and /, then + and -, left to
 * right within a level, with Java numeric promotion. Arithmetic with NULL, or with a value that is not a number, is
 * NULL, and so is integer division by zero.
 */
class SelectorArithmeticTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "2 + 3 * 4 = 14", "(2 + 3) * 4 = 20", "2 * 3 + 4 = 10", "2 * (3 + 4) = 14",
            "10 - 4 - 3 = 3", "10 - (4 - 3) = 9", "100 / 10 / 5 = 2", "100 / (10 / 5) = 50",
            "12 / 3 * 2 = 8", "12 / (3 * 2) = 2", "-2 * 3 = -6", "-(2 + 3) = -5", "- -5 = 5", "2 - -3 = 5",
            "+2 + +3 = 5", "-2 - 3 = -5", "2-3 = -1", "1 + 2 * 3 - 4 / 2 = 5", "-(-(-(1))) = -1",
            "7 / 2 = 3", "-7 / 2 = -3", "7 / 2.0 = 3.5", "7.0 / 2 = 3.5", "0.5 + 0.25 = 0.75",
            "1 + 2 = 3 AND 2 * 2 = 4", "5 > 2 + 2", "2 + 2 < 5", "1 + 1 BETWEEN 2 AND 2"})
    void operatorsFollowTheirPrecedence(String selector) {
        assertTrue(matches(selector), selector);
    }

    @Test
    void arithmeticWorksOnIdentifiers() {
        assertTrue(matches("price * quantity > 100", "price", 12.5, "quantity", 9));
        assertFalse(matches("price * quantity > 100", "price", 12.5, "quantity", 8));
        assertTrue(matches("total - discount = net", "total", 100, "discount", 15L, "net", 85.0f));
        assertTrue(matches("-balance > 0", "balance", -3));
        assertTrue(matches("+balance < 0", "balance", -3));
    }

    @Test
    void intArithmeticWrapsOnOverflowAsInJava() {
        assertTrue(matches("i * 2 = -2", "i", Integer.MAX_VALUE));
        assertTrue(matches("i + 1 = -2147483648", "i", Integer.MAX_VALUE));
        assertTrue(matches("-i = i", "i", Integer.MIN_VALUE));
        assertTrue(matches("i / -1 = i", "i", Integer.MIN_VALUE));
    }

    @Test
    void aLongOperandPromotesToLong() {
        assertTrue(matches("l * 2 = 4294967294", "l", (long) Integer.MAX_VALUE));
        assertFalse(matches("i * 2 = 4294967294", "i", Integer.MAX_VALUE));
        assertTrue(matches("i * 2L = 4294967294", "i", Integer.MAX_VALUE));
        assertTrue(matches("i + 2147483648 = 4294967295", "i", Integer.MAX_VALUE));
        assertTrue(matches("l + 1 = -9223372036854775808", "l", Long.MAX_VALUE));
    }

    @Test
    void byteAndShortPromoteToInt() {
        assertTrue(matches("b + s = 300", "b", (byte) 100, "s", (short) 200));
        assertTrue(matches("b * b = 16129", "b", (byte) 127));
        assertTrue(matches("-b = 128", "b", Byte.MIN_VALUE));
        assertTrue(matches("s / 7 = 4", "s", (short) 30));
    }

    @Test
    void floatAndDoubleOperandsPromoteAsInJava() {
        assertTrue(matches("f + 0.5 = 0.75", "f", 0.25f));
        assertTrue(matches("f * i = 2.5", "f", 0.5f, "i", 5));
        assertTrue(matches("i / f = 10", "i", 5, "f", 0.5f));
        assertTrue(matches("l / 2.0 = 2.5", "l", 5L));
        assertTrue(matches("d - f = 0", "d", 0.5, "f", 0.5f));
        // float arithmetic is float: 16777217 is not a float.
        assertTrue(matches("f + 1 = 16777216", "f", 16_777_216f));
        assertTrue(matches("f + 1F = f", "f", 16_777_216f));
        assertFalse(matches("d + 1 = d", "d", 16_777_216d));
    }

    @Test
    void integerDivisionByZeroIsUnknown() {
        assertEquals(Truth.UNKNOWN, truth("i / 0 = 0", "i", 5));
        assertEquals(Truth.UNKNOWN, truth("i / 0 <> 0", "i", 5));
        assertEquals(Truth.UNKNOWN, truth("l / z > 0", "l", 5L, "z", 0L));
        assertEquals(Truth.UNKNOWN, truth("1 / 0 = 1"));
        assertEquals(Truth.TRUE, truth("i / 0 = 0 OR i = 5", "i", 5));
    }

    @Test
    void floatingPointDivisionByZeroFollowsIeee754AsInJava() {
        assertTrue(matches("1 / 0.0 > 1.7976931348623157E308"));
        assertTrue(matches("-1 / 0.0 < -1.7976931348623157E308"));
        assertTrue(matches("x / 0 > 1000000", "x", 1.0));
        assertTrue(matches("x / 0 > 1000000", "x", 1.0f));
        assertEquals(Truth.FALSE, truth("0.0 / 0 = 0.0 / 0"));
        assertEquals(Truth.TRUE, truth("0.0 / 0 <> 0.0 / 0"));
        assertEquals(Truth.FALSE, truth("nan < 1 OR nan >= 1", "nan", Double.NaN));
    }

    @Test
    void arithmeticWithNullIsUnknown() {
        assertEquals(Truth.UNKNOWN, truth("missing + 1 = 1"));
        assertEquals(Truth.UNKNOWN, truth("1 + missing = 1"));
        assertEquals(Truth.UNKNOWN, truth("-missing = 0"));
        assertEquals(Truth.UNKNOWN, truth("missing * 0 = 0"));
    }

    @Test
    void arithmeticWithAValueThatIsNotANumberIsUnknown() {
        assertEquals(Truth.UNKNOWN, truth("s + 1 = 2", "s", "1"));
        assertEquals(Truth.UNKNOWN, truth("1 + s = 2", "s", "1"));
        assertEquals(Truth.UNKNOWN, truth("flag * 1 = 1", "flag", true));
        assertEquals(Truth.UNKNOWN, truth("-s = -1", "s", "1"));
        assertEquals(Truth.UNKNOWN, truth("+s = 1", "s", "1"));
        assertEquals(Truth.UNKNOWN, truth("big + 1 = 2", "big", BigDecimal.ONE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"'abc' + 1 = 2", "1 + 'abc' = 2", "TRUE * 2 = 2", "-'x' = 1", "+TRUE = 1",
            "JMSType + 1 = 2", "JMSMessageID * 2 = 2", "(a = 1) + 1 = 2", "1 - (NOT a) = 1", "-(a > 1) = 1"})
    void arithmeticOnAStringOrBooleanThatTheParserCanSeeIsRefused(String selector) {
        String message = invalid(selector).getMessage();
        assertTrue(message.contains("needs a number"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1 + 2", "-a", "a * 2", "'text'", "JMSPriority", "JMSType"})
    void aSelectorThatIsNotAConditionIsRefused(String selector) {
        invalid(selector);
    }
}
