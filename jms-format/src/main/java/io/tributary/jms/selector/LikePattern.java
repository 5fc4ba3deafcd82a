package io.tributary.jms.selector;

import java.util.Arrays;

/**
 * A compiled LIKE pattern (Jakarta Messaging 3.1 section 3.8.1.1): {@code _} stands for any one character, {@code %}
 * for any sequence of characters including none, and every other character for itself, so regular-expression
 * metacharacters such as {@code .}, {@code *} or {@code [} need no care. The escape character, when there is one,
 * takes away the special meaning of a following {@code _} or {@code %}, or stands for itself when doubled; before
 * anything else, or at the end of the pattern, it is an error, as in SQL92.
 *
 * <p>Characters are Unicode code points, so {@code _} matches one supplementary character, not half of one.
 * Matching allocates nothing and uses no regular expression: a single left-to-right pass that, on a mismatch,
 * backtracks only to the most recent {@code %}, which is enough because a later {@code %} can absorb anything an
 * earlier one could (worst case O(pattern x value), typical O(value)). Immutable and thread-safe.
 */
final class LikePattern {

    private static final int ANY_ONE = -1;
    private static final int ANY_SEQUENCE = -2;

    /** Code points to match literally, or {@link #ANY_ONE} or {@link #ANY_SEQUENCE}; runs of % collapsed to one. */
    private final int[] elements;
    /** The pattern as a plain string when it has no wildcard at all: then LIKE is string equality. */
    private final String literal;
    private final String text;

    private LikePattern(int[] elements, String literal, String text) {
        this.elements = elements;
        this.literal = literal;
        this.text = text;
    }

    /**
     * Compiles {@code pattern}, with {@code escape} the escape code point or {@code -1} for none.
     *
     * @throws IllegalArgumentException if an escape character is not followed by {@code _}, {@code %} or itself
     */
    static LikePattern compile(String pattern, int escape) {
        int[] elements = new int[pattern.codePointCount(0, pattern.length())];
        int count = 0;
        boolean wildcards = false;
        StringBuilder literal = new StringBuilder(pattern.length());
        for (int i = 0; i < pattern.length(); ) {
            int c = pattern.codePointAt(i);
            i += Character.charCount(c);
            if (c == escape) {
                int escaped = i < pattern.length() ? pattern.codePointAt(i) : -1;
                if (escaped != '_' && escaped != '%' && escaped != escape) {
                    throw new IllegalArgumentException("in LIKE pattern " + Strings.quote(pattern)
                            + " the escape character " + Strings.quote(new String(Character.toChars(escape)))
                            + (escaped < 0 ? " ends the pattern" : " is followed by "
                            + Strings.quote(new String(Character.toChars(escaped))))
                            + "; it may only precede '_', '%' or itself");
                }
                i += Character.charCount(escaped);
                elements[count++] = escaped;
                literal.appendCodePoint(escaped);
            } else if (c == '_') {
                elements[count++] = ANY_ONE;
                wildcards = true;
            } else if (c == '%') {
                if (count == 0 || elements[count - 1] != ANY_SEQUENCE) {
                    elements[count++] = ANY_SEQUENCE;
                }
                wildcards = true;
            } else {
                elements[count++] = c;
                literal.appendCodePoint(c);
            }
        }
        String text = Strings.quote(pattern)
                + (escape < 0 ? "" : " ESCAPE " + Strings.quote(new String(Character.toChars(escape))));
        return new LikePattern(Arrays.copyOf(elements, count), wildcards ? null : literal.toString(), text);
    }

    boolean matches(String value) {
        if (literal != null) {
            return literal.equals(value);
        }
        int p = 0;
        int v = 0;
        int lastSequence = -1; // index in elements of the most recent % passed
        int resumeAt = 0;      // where in value that % would next absorb one more character
        while (v < value.length()) {
            int c = value.codePointAt(v);
            if (p < elements.length && (elements[p] == ANY_ONE || elements[p] == c)) {
                p++;
                v += Character.charCount(c);
            } else if (p < elements.length && elements[p] == ANY_SEQUENCE) {
                lastSequence = p++;
                resumeAt = v;
            } else if (lastSequence >= 0) {
                p = lastSequence + 1;
                resumeAt += Character.charCount(value.codePointAt(resumeAt));
                v = resumeAt;
            } else {
                return false;
            }
        }
        while (p < elements.length && elements[p] == ANY_SEQUENCE) {
            p++;
        }
        return p == elements.length;
    }

    /** The pattern written back as selector text, with its ESCAPE clause. */
    @Override
    public String toString() {
        return text;
    }
}
