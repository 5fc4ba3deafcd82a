package io.tributary.jms.selector;

import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;

import java.util.function.Function;

/**
 * A parsed Jakarta Messaging message selector (Jakarta Messaging 3.1 section 3.8.1), ready to test messages.
 *
 * <p>{@link #parse} checks the whole selector once: syntax, the header fields it may name, and the types it can see
 * without a message. {@link #matches} then evaluates the selector with SQL92 three-valued logic and is TRUE only when
 * the selector is; FALSE and UNKNOWN (what a NULL, that is an absent property, makes of a comparison) do not match.
 * Evaluation never throws for a value of an unexpected type. Where section 3.8.1.1 is explicit it is followed to the
 * letter, including where the letter surprises:
 * <ul>
 *   <li>comparing values of unlike types ({@code s = 1} for a string {@code s}) is FALSE, not UNKNOWN, so
 *       {@code NOT (s = 1)} matches;</li>
 *   <li>{@code NOT BETWEEN} is {@code v < low OR v > high}, hence FALSE for a non-numeric value, while
 *       {@code NOT IN} is {@code NOT (... OR ...)}, hence TRUE for a non-string value; {@code NOT LIKE} is taken
 *       to be the negation of {@code LIKE} like {@code NOT IN};</li>
 *   <li>arithmetic and comparison use Java numeric promotion, integer overflow wraps, integer division by zero is
 *       NULL, floating-point division by zero gives an infinity or NaN as in Java.</li>
 * </ul>
 *
 * <p>Identifiers are looked up by their case-sensitive names. In the function given to {@link #matches(Function)},
 * values are {@code Boolean}, {@code Byte}, {@code Short}, {@code Integer}, {@code Long}, {@code Float},
 * {@code Double} or {@code String}, and {@code null} for an absent identifier. The selectable header fields are
 * looked up under their own names, with these values: {@code JMSDeliveryMode} the String {@code "PERSISTENT"} or
 * {@code "NON_PERSISTENT"}, {@code JMSPriority} an Integer, {@code JMSTimestamp} a Long, and {@code JMSMessageID},
 * {@code JMSCorrelationID} and {@code JMSType} Strings.
 *
 * <p>Instances are immutable: one selector may be evaluated by any number of threads at once. Evaluation compiles
 * nothing (LIKE patterns are compiled by {@link #parse}) and allocates at most the boxes of arithmetic results.
 */
public final class MessageSelector {

    private static final MessageSelector NONE = new MessageSelector(null, null);

    private final String text;
    /** The condition to evaluate; {@code null} when the selector is null or blank and everything matches. */
    private final Expression condition;

    private MessageSelector(String text, Expression condition) {
        this.text = text;
        this.condition = condition;
    }

    /** The selector that matches every message, as a {@code null} selector does. */
    public static MessageSelector all() {
        return NONE;
    }

    /**
     * Parses a selector. A {@code null} selector, or one with nothing but whitespace, matches every message
     * (section 3.8.1.1: an empty selector is treated as null).
     *
     * @throws InvalidSelectorException if the selector is not valid, with a message naming the column where the
     *                                  problem is and what was expected there
     */
    public static MessageSelector parse(String selector) throws InvalidSelectorException {
        if (selector == null) {
            return NONE;
        }
        return new MessageSelector(selector, Parser.parse(selector));
    }

    /**
     * Whether the selector is TRUE for the identifier values that {@code identifierValues} returns (see the class
     * description for their types). Never throws for a value of an unexpected type.
     */
    public boolean matches(Function<String, Object> identifierValues) {
        return condition == null || condition.test(identifierValues) == Truth.TRUE;
    }

    /**
     * Whether the selector is TRUE for a message: the selectable header fields are read from the message's
     * getters, properties with {@link Message#getObjectProperty}; only the identifiers the selector names are read.
     *
     * @throws JMSException if the message fails to return a header field or property
     */
    public boolean matches(Message message) throws JMSException {
        if (condition == null) {
            return true;
        }
        try {
            return matches(name -> read(message, name));
        } catch (UncheckedReadFailure e) {
            throw e.getCause();
        }
    }

    private static Object read(Message message, String name) {
        try {
            HeaderField header = HeaderField.named(name);
            return header != null ? header.read(message) : message.getObjectProperty(name);
        } catch (JMSException e) {
            throw new UncheckedReadFailure(e);
        }
    }

    /** The selector exactly as given to {@link #parse}, {@code null} included. */
    public String text() {
        return text;
    }

    /** Whether the selector was null or blank, so that every message matches. */
    public boolean matchesAll() {
        return condition == null;
    }

    /** The selector text, for logs. */
    @Override
    public String toString() {
        return condition == null ? "MessageSelector[all]" : "MessageSelector[" + text + "]";
    }

    /** Carries a message's JMSException through {@link #matches(Function)}, which cannot declare it. */
    private static final class UncheckedReadFailure extends RuntimeException {

        UncheckedReadFailure(JMSException cause) {
            super(cause);
        }

        @Override
        public synchronized JMSException getCause() {
            return (JMSException) super.getCause();
        }
    }
}
