package io.tributary.jms.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** {@link LikePattern} against a reference model: the same pattern translated to a regular expression. */
class LikePatternTest {

    @Test
    void agreesWithARegularExpressionModelOnRandomPatternsAndValues() {
        Random random = new Random(20261130);
        String patternAlphabet = "ab%_.";
        String valueAlphabet = "ab._%";
        for (int round = 0; round < 20_000; round++) {
            String pattern = randomString(random, patternAlphabet, 7);
            String value = randomString(random, valueAlphabet, 9);
            LikePattern like = LikePattern.compile(pattern, -1);
            boolean expected = model(pattern).matcher(value).matches();
            assertEquals(expected, like.matches(value), "'" + value + "' LIKE '" + pattern + "'");
        }
    }

    @Test
    void escapedPatternsAgreeWithTheModelToo() {
        Random random = new Random(42);
        for (int round = 0; round < 5_000; round++) {
            String raw = randomString(random, "a%_", 6);
            // Escape each wildcard with probability 1/2; the model sees the escaped ones as literals.
            StringBuilder pattern = new StringBuilder();
            StringBuilder regex = new StringBuilder();
            for (char c : raw.toCharArray()) {
                boolean escape = (c == '%' || c == '_') && random.nextBoolean();
                pattern.append(escape ? "!" + c : String.valueOf(c));
                regex.append(escape || c == 'a' ? Pattern.quote(String.valueOf(c)) : c == '%' ? ".*" : ".");
            }
            String value = randomString(random, "a%_", 7);
            assertEquals(Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(value).matches(),
                    LikePattern.compile(pattern.toString(), '!').matches(value), "'" + value + "' LIKE '" + pattern
                            + "' ESCAPE '!'");
        }
    }

    @Test
    void backtrackingStaysLinearPerPercentOnAdversarialInput() {
        LikePattern pattern = LikePattern.compile("%a%a%a%a%a%b", -1);
        String value = "a".repeat(20_000);
        assertFalse(pattern.matches(value));
        assertTrue(pattern.matches(value + "b"));
    }

    @Test
    void writesItselfBackAsSelectorText() {
        assertEquals("'it''s%'", LikePattern.compile("it's%", -1).toString());
        assertEquals("'a!_b' ESCAPE '!'", LikePattern.compile("a!_b", '!').toString());
    }

    private static String randomString(Random random, String alphabet, int maxLength) {
        int length = random.nextInt(maxLength + 1);
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    /** The LIKE pattern as a regular expression: % is .*, _ is ., everything else quoted. */
    private static Pattern model(String like) {
        StringBuilder regex = new StringBuilder();
        for (char c : like.toCharArray()) {
            regex.append(c == '%' ? ".*" : c == '_' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}
