package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.invalid;
import static io.tributary.jms.selector.SelectorTesting.matches;
import static io.tributary.jms.selector.SelectorTesting.selector;
import static io.tributary.jms.selector.SelectorTesting.truth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three-valued logic (Jakarta Messaging 3.1 section 3.8.1.2, tables 3-4 to 3-6) and the precedence NOT, AND, OR.
 * Each operand is made TRUE, FALSE or UNKNOWN in two ways: a boolean identifier (UNKNOWN when absent) and a
 * comparison (UNKNOWN when it compares with an absent property).
 */
class SelectorLogicTest {

    /** Table 3-4, row by row: T T T, T F F, T U U, F T F, F F F, F U F, U T U, U F F, U U U. */
    static Stream<Arguments> andTable() {
        return Stream.of(
                Arguments.of(Truth.TRUE, Truth.TRUE, Truth.TRUE),
                Arguments.of(Truth.TRUE, Truth.FALSE, Truth.FALSE),
                Arguments.of(Truth.TRUE, Truth.UNKNOWN, Truth.UNKNOWN),
                Arguments.of(Truth.FALSE, Truth.TRUE, Truth.FALSE),
                Arguments.of(Truth.FALSE, Truth.FALSE, Truth.FALSE),
                Arguments.of(Truth.FALSE, Truth.UNKNOWN, Truth.FALSE),
                Arguments.of(Truth.UNKNOWN, Truth.TRUE, Truth.UNKNOWN),
                Arguments.of(Truth.UNKNOWN, Truth.FALSE, Truth.FALSE),
                Arguments.of(Truth.UNKNOWN, Truth.UNKNOWN, Truth.UNKNOWN));
    }

    /** Table 3-5, row by row: T T T, T F T, T U T, F T T, F F F, F U U, U T T, U F U, U U U. */
    static Stream<Arguments> orTable() {
        return Stream.of(
                Arguments.of(Truth.TRUE, Truth.TRUE, Truth.TRUE),
                Arguments.of(Truth.TRUE, Truth.FALSE, Truth.TRUE),
                Arguments.of(Truth.TRUE, Truth.UNKNOWN, Truth.TRUE),
                Arguments.of(Truth.FALSE, Truth.TRUE, Truth.TRUE),
                Arguments.of(Truth.FALSE, Truth.FALSE, Truth.FALSE),
                Arguments.of(Truth.FALSE, Truth.UNKNOWN, Truth.UNKNOWN),
                Arguments.of(Truth.UNKNOWN, Truth.TRUE, Truth.TRUE),
                Arguments.of(Truth.UNKNOWN, Truth.FALSE, Truth.UNKNOWN),
                Arguments.of(Truth.UNKNOWN, Truth.UNKNOWN, Truth.UNKNOWN));
    }

    /** A boolean identifier's value for a truth value: TRUE, FALSE, or absent for UNKNOWN. */
    private static Boolean flag(Truth truth) {
        return truth.toBoolean();
    }

    /** A number that makes {@code n = 1} TRUE, FALSE, or absent for UNKNOWN. */
    private static Integer number(Truth truth) {
        return switch (truth) {
            case TRUE -> 1;
            case FALSE -> 2;
            case UNKNOWN -> null;
        };
    }

    @ParameterizedTest(name = "{0} AND {1} is {2}")
    @MethodSource("andTable")
    void andFollowsTable3_4(Truth left, Truth right, Truth expected) {
        assertEquals(expected, truth("a AND b", "a", flag(left), "b", flag(right)));
        assertEquals(expected, truth("m = 1 AND n = 1", "m", number(left), "n", number(right)));
        assertEquals(expected, truth("b AND a", "a", flag(right), "b", flag(left)));
    }

    @ParameterizedTest(name = "{0} OR {1} is {2}")
    @MethodSource("orTable")
    void orFollowsTable3_5(Truth left, Truth right, Truth expected) {
        assertEquals(expected, truth("a OR b", "a", flag(left), "b", flag(right)));
        assertEquals(expected, truth("m = 1 OR n = 1", "m", number(left), "n", number(right)));
        assertEquals(expected, truth("b OR a", "a", flag(right), "b", flag(left)));
    }

    @Test
    void notFollowsTable3_6() {
        assertEquals(Truth.FALSE, truth("NOT a", "a", true));
        assertEquals(Truth.TRUE, truth("NOT a", "a", false));
        assertEquals(Truth.UNKNOWN, truth("NOT a"));
        assertEquals(Truth.FALSE, truth("NOT n = 1", "n", 1));
        assertEquals(Truth.TRUE, truth("NOT n = 1", "n", 2));
        assertEquals(Truth.UNKNOWN, truth("NOT n = 1"));
        assertEquals(Truth.TRUE, truth("NOT NOT a", "a", true));
        assertEquals(Truth.UNKNOWN, truth("NOT NOT NOT a"));
    }

    @Test
    void longChainsCombineLeftToRightWithTheSameTables() {
        assertEquals(Truth.FALSE, truth("a AND b AND c AND d", "a", true, "b", null, "c", false, "d", true));
        assertEquals(Truth.UNKNOWN, truth("a AND b AND c AND d", "a", true, "b", null, "c", true, "d", true));
        assertEquals(Truth.TRUE, truth("a OR b OR c OR d", "a", false, "b", null, "c", true, "d", false));
        assertEquals(Truth.UNKNOWN, truth("a OR b OR c OR d", "a", false, "b", null, "c", false, "d", false));
    }

    @Test
    void notBindsTighterThanAndWhichBindsTighterThanOr() {
        // a OR (b AND c), not (a OR b) AND c
        assertTrue(matches("a OR b AND c", "a", true, "b", false, "c", false));
        assertFalse(matches("(a OR b) AND c", "a", true, "b", false, "c", false));
        // b AND c OR a is (b AND c) OR a
        assertTrue(matches("b AND c OR a", "a", true, "b", false, "c", false));
        // (NOT a) AND b, not NOT (a AND b)
        assertFalse(matches("NOT a AND b", "a", false, "b", false));
        assertTrue(matches("NOT (a AND b)", "a", false, "b", false));
        // (NOT a) OR b
        assertTrue(matches("NOT a OR b", "a", false, "b", false));
        // NOT applies to the whole comparison: NOT (n = 1)
        assertTrue(matches("NOT n = 1", "n", 2));
        assertTrue(matches("NOT n + 1 = 3", "n", 1));
    }

    @Test
    void comparisonsBindTighterThanLogicalOperators() {
        assertTrue(matches("a = 1 AND b = 2 OR c = 3", "a", 1, "b", 2));
        assertTrue(matches("a = 1 AND b = 2 OR c = 3", "c", 3));
        assertFalse(matches("a = 1 AND (b = 2 OR c = 3)", "c", 3));
        assertTrue(matches("age BETWEEN 1 AND 5 AND name LIKE 'x%' OR flag", "flag", true));
    }

    @Test
    void booleanIdentifiersAreConditions() {
        assertTrue(matches("urgent", "urgent", true));
        assertFalse(matches("urgent", "urgent", false));
        assertTrue(matches("urgent AND NOT archived", "urgent", true, "archived", false));
    }

    @Test
    void anIdentifierThatIsNotABooleanIsAnUnknownCondition() {
        assertEquals(Truth.UNKNOWN, truth("urgent", "urgent", "true"));
        assertEquals(Truth.UNKNOWN, truth("urgent", "urgent", 1));
        assertEquals(Truth.UNKNOWN, truth("NOT urgent", "urgent", 0));
        assertEquals(Truth.TRUE, truth("urgent OR TRUE", "urgent", "yes"));
    }

    @Test
    void evaluationStopsAtTheOperandThatDecidesTheResult() {
        List<String> looked = new ArrayList<>();
        Map<String, Object> values = Map.of("a", false, "b", true, "c", true);
        assertFalse(selector("a AND b AND c").matches(name -> {
            looked.add(name);
            return values.get(name);
        }));
        assertEquals(List.of("a"), looked);
        looked.clear();
        assertTrue(selector("b OR a OR c").matches(name -> {
            looked.add(name);
            return values.get(name);
        }));
        assertEquals(List.of("b"), looked);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NOT 'x'", "NOT 1", "NOT (1 + 2)", "1 AND a", "a AND 'b'", "a OR 2.5", "'a' OR b",
            "NOT JMSType", "JMSPriority AND a", "a AND b OR 3"})
    void logicalOperatorsOnANumberOrStringThatTheParserCanSeeAreRefused(String selector) {
        String message = invalid(selector).getMessage();
        assertTrue(message.contains("needs a conditional expression"), message);
    }

    @Test
    void aThousandConditionsInOneConjunctionEvaluateWithoutDeepRecursion() {
        StringBuilder text = new StringBuilder("n0 = 0");
        for (int i = 1; i < 1000; i++) {
            text.append(" AND n").append(i).append(" = ").append(i);
        }
        MessageSelector selector = selector(text.toString());
        assertTrue(selector.matches(name -> Integer.parseInt(name.substring(1))));
        assertFalse(selector.matches(name -> name.equals("n999") ? 0 : Integer.parseInt(name.substring(1))));
    }

    @Test
    void nestingUpToTheLimitIsAccepted() {
        int depth = Parser.MAX_DEPTH - 10;
        assertTrue(matches("(".repeat(depth) + "a = 1" + ")".repeat(depth), "a", 1));
        assertTrue(matches("NOT ".repeat(depth) + "a", "a", true));
    }

    @Test
    void nestingBeyondTheLimitIsRefusedInsteadOfOverflowingTheStack() {
        int depth = 10_000;
        assertTrue(invalid("(".repeat(depth) + "a = 1" + ")".repeat(depth)).getMessage().contains("levels deep"));
        assertTrue(invalid("NOT ".repeat(depth) + "a").getMessage().contains("levels deep"));
        assertTrue(invalid("a = " + "-".repeat(depth) + "b").getMessage().contains("levels deep"));
        assertTrue(invalid("a = 0" + " + 1".repeat(depth)).getMessage().contains("levels deep"));
    }
}
