/**
 * Jakarta Messaging message selectors (Jakarta Messaging 3.1, section 3.8.1): a hand-written lexer, a
 * recursive-descent parser that type-checks what it can see, and an evaluator with SQL92 three-valued logic.
 *
 * <p>{@link io.tributary.jms.selector.MessageSelector} is the only public class; everything else is the
 * implementation: {@code Lexer} turns the text into {@code Token}s, {@code Parser} turns those into a tree of
 * {@code Expression}s, and the tree evaluates to a {@code Truth} against a message's header fields and properties.
 */
package io.tributary.jms.selector;
