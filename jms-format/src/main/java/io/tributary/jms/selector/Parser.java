package io.tributary.jms.selector;

import jakarta.jms.InvalidSelectorException;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive-descent parser of the selector grammar of Jakarta Messaging 3.1 section 3.8.1.1, one method per
 * precedence level, lowest first:
 *
 * <pre>
 * selector       = or END
 * or             = and { OR and }
 * and            = not { AND not }
 * not            = NOT not | comparison
 * comparison     = additive [ ( "=" | "&lt;&gt;" | "&lt;" | "&lt;=" | "&gt;" | "&gt;=" ) additive
 *                           | [NOT] BETWEEN additive AND additive
 *                           | [NOT] IN "(" string { "," string } ")"          (after an identifier)
 *                           | [NOT] LIKE string [ ESCAPE string ]             (after an identifier)
 *                           | IS [NOT] NULL ]                                 (after an identifier)
 * additive       = multiplicative { ( "+" | "-" ) multiplicative }
 * multiplicative = unary { ( "*" | "/" ) unary }
 * unary          = ( "+" | "-" ) unary | primary
 * primary        = string | number | TRUE | FALSE | identifier | "(" or ")"
 * </pre>
 *
 * Operators of one level associate left to right. A comparison cannot be the operand of another comparison without
 * parentheses ({@code a = b = c} is refused). Besides the syntax, the parser refuses what the types it can see make
 * meaningless (section 3.8.1.1 allows providers this semantic checking): arithmetic on a string or boolean, NOT, AND
 * or OR on a number or string, ordering comparisons of strings or booleans, {@code =} between unlike known types, a
 * selector that is not a condition, and identifiers that name header fields selectors may not use. Used once per
 * selector, by one thread.
 */
final class Parser {

    /**
     * Deepest nesting accepted, of parentheses and prefix operators while parsing and of nodes in the tree. Both
     * parsing and evaluation recurse once per level; 200 levels stay far inside a default thread stack, and no
     * hand-written selector comes near them.
     */
    static final int MAX_DEPTH = 200;

    private final String selector;
    private final List<Token> tokens;
    private int next;
    private int nesting;

    private Parser(String selector, List<Token> tokens) {
        this.selector = selector;
        this.tokens = tokens;
    }

    /** The selector's condition, or {@code null} if the selector has nothing but whitespace. */
    static Expression parse(String selector) throws InvalidSelectorException {
        List<Token> tokens = Lexer.tokenize(selector);
        if (tokens.size() == 1) {
            return null;
        }
        Parser parser = new Parser(selector, tokens);
        Expression condition = parser.or();
        Token end = parser.peek();
        if (end.kind() != TokenKind.END) {
            throw parser.unexpected(end, condition.type() == ValueType.NUMBER || condition.type() == ValueType.STRING
                    ? "an operator or the end of the selector" : "AND, OR or the end of the selector");
        }
        parser.requireCondition(condition, "a selector");
        return condition;
    }

    private Expression or() throws InvalidSelectorException {
        Expression first = and();
        if (peek().kind() != TokenKind.OR) {
            return first;
        }
        List<Expression> operands = new ArrayList<>();
        operands.add(requireCondition(first, "OR"));
        while (accept(TokenKind.OR)) {
            operands.add(requireCondition(and(), "OR"));
        }
        return checkDepth(new Or(operands));
    }

    private Expression and() throws InvalidSelectorException {
        Expression first = not();
        if (peek().kind() != TokenKind.AND) {
            return first;
        }
        List<Expression> operands = new ArrayList<>();
        operands.add(requireCondition(first, "AND"));
        while (accept(TokenKind.AND)) {
            operands.add(requireCondition(not(), "AND"));
        }
        return checkDepth(new And(operands));
    }

    private Expression not() throws InvalidSelectorException {
        Token not = peek();
        if (!accept(TokenKind.NOT)) {
            return comparison();
        }
        enter(not);
        Expression operand = requireCondition(not(), "NOT");
        nesting--;
        return checkDepth(new Not(not.position(), operand));
    }

    private Expression comparison() throws InvalidSelectorException {
        Token first = peek();
        Expression left = additive();
        Token operator = peek();
        switch (operator.kind()) {
            case EQUAL, NOT_EQUAL, LESS, LESS_OR_EQUAL, GREATER, GREATER_OR_EQUAL -> {
                next++;
                ComparisonOperator op = comparisonOperator(operator.kind());
                Expression right = additive();
                requireComparable(op, left, right);
                Token after = peek();
                if (comparisonOperator(after.kind()) != null) {
                    throw SelectorErrors.at(selector, after.position(), "a comparison cannot be compared again with '"
                            + after.text() + "' (combine comparisons with AND or OR, or use parentheses)");
                }
                return checkDepth(new Comparison(op, left, right));
            }
            case NOT -> {
                Token keyword = tokens.get(next + 1);
                if (keyword.kind() != TokenKind.BETWEEN && keyword.kind() != TokenKind.IN
                        && keyword.kind() != TokenKind.LIKE) {
                    throw unexpected(keyword, "BETWEEN, IN or LIKE after NOT");
                }
                next += 2;
                return predicate(keyword, first, left, true);
            }
            case BETWEEN, IN, LIKE -> {
                next++;
                return predicate(operator, first, left, false);
            }
            case IS -> {
                next++;
                Identifier identifier = requireIdentifier(left, first, "IS NULL");
                boolean negated = accept(TokenKind.NOT);
                expect(TokenKind.NULL, negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
                return new NullTest(identifier, negated);
            }
            default -> {
                return left;
            }
        }
    }

    private Expression predicate(Token keyword, Token first, Expression left, boolean negated)
            throws InvalidSelectorException {
        String name = (negated ? "NOT " : "") + keyword.kind();
        switch (keyword.kind()) {
            case BETWEEN -> {
                requireType(left, ValueType.NUMBER, name);
                Expression low = requireType(additive(), ValueType.NUMBER, name);
                expect(TokenKind.AND, "AND between the bounds of " + name);
                Expression high = requireType(additive(), ValueType.NUMBER, name);
                return checkDepth(new Between(left, low, high, negated));
            }
            case IN -> {
                Identifier identifier = requireType(requireIdentifier(left, first, name), ValueType.STRING, name);
                expect(TokenKind.LEFT_PAREN, "'(' to open the list of " + name);
                List<String> entries = new ArrayList<>();
                do {
                    entries.add((String) expect(TokenKind.STRING,
                            "a string literal (the list of " + name + " holds one or more string literals)").value());
                } while (accept(TokenKind.COMMA));
                expect(TokenKind.RIGHT_PAREN, "',' or ')' to close the list of " + name);
                return new InList(identifier, entries, negated);
            }
            default -> {
                Identifier identifier = requireType(requireIdentifier(left, first, name), ValueType.STRING, name);
                Token pattern = expect(TokenKind.STRING, "a string literal pattern after " + name);
                int escape = -1;
                if (accept(TokenKind.ESCAPE)) {
                    Token escapeToken = expect(TokenKind.STRING, "a single-character string literal after ESCAPE");
                    String escapeText = (String) escapeToken.value();
                    if (escapeText.codePointCount(0, escapeText.length()) != 1) {
                        throw SelectorErrors.at(selector, escapeToken.position(), "ESCAPE takes a single-character "
                                + "string literal, but " + escapeToken.text() + " has "
                                + escapeText.codePointCount(0, escapeText.length()) + " characters");
                    }
                    escape = escapeText.codePointAt(0);
                }
                try {
                    return new Like(identifier, LikePattern.compile((String) pattern.value(), escape), negated);
                } catch (IllegalArgumentException e) {
                    throw SelectorErrors.at(selector, pattern.position(), e.getMessage());
                }
            }
        }
    }

    private Expression additive() throws InvalidSelectorException {
        Expression left = multiplicative();
        while (peek().kind() == TokenKind.PLUS || peek().kind() == TokenKind.MINUS) {
            ArithmeticOperator op = tokens.get(next++).kind() == TokenKind.PLUS
                    ? ArithmeticOperator.ADD : ArithmeticOperator.SUBTRACT;
            Expression right = multiplicative();
            left = arithmetic(op, left, right);
        }
        return left;
    }

    private Expression multiplicative() throws InvalidSelectorException {
        Expression left = unary();
        while (peek().kind() == TokenKind.TIMES || peek().kind() == TokenKind.DIVIDE) {
            ArithmeticOperator op = tokens.get(next++).kind() == TokenKind.TIMES
                    ? ArithmeticOperator.MULTIPLY : ArithmeticOperator.DIVIDE;
            Expression right = unary();
            left = arithmetic(op, left, right);
        }
        return left;
    }

    private Expression arithmetic(ArithmeticOperator op, Expression left, Expression right)
            throws InvalidSelectorException {
        String name = "'" + op.symbol() + "'";
        requireType(left, ValueType.NUMBER, name);
        requireType(right, ValueType.NUMBER, name);
        return checkDepth(new Arithmetic(op, left, right));
    }

    private Expression unary() throws InvalidSelectorException {
        Token sign = peek();
        if (sign.kind() != TokenKind.MINUS && sign.kind() != TokenKind.PLUS) {
            return primary();
        }
        next++;
        boolean negate = sign.kind() == TokenKind.MINUS;
        Token number = peek();
        // The sign belongs to a numeric literal that follows it directly: -957 is one literal (section 3.8.1.1),
        // and -2147483648 or -9223372036854775808 exist only with their sign.
        if (number.kind() == TokenKind.EXACT_NUMBER) {
            next++;
            return exactLiteral(number, negate, sign.position());
        }
        if (number.kind() == TokenKind.APPROXIMATE_NUMBER) {
            next++;
            Number value = (Number) number.value();
            return new Literal(sign.position(), negate ? UnaryArithmetic.negate(value) : value, ValueType.NUMBER,
                    sign.text() + number.text());
        }
        enter(sign);
        Expression operand = requireType(unary(), ValueType.NUMBER, "unary '" + sign.text() + "'");
        nesting--;
        return checkDepth(new UnaryArithmetic(sign.position(), negate, operand));
    }

    private Expression primary() throws InvalidSelectorException {
        Token token = peek();
        switch (token.kind()) {
            case STRING -> {
                next++;
                return new Literal(token.position(), token.value(), ValueType.STRING, token.text());
            }
            case EXACT_NUMBER -> {
                next++;
                return exactLiteral(token, false, token.position());
            }
            case APPROXIMATE_NUMBER -> {
                next++;
                return new Literal(token.position(), token.value(), ValueType.NUMBER, token.text());
            }
            case TRUE, FALSE -> {
                next++;
                return new Literal(token.position(), token.kind() == TokenKind.TRUE, ValueType.BOOLEAN,
                        token.kind().name());
            }
            case IDENTIFIER -> {
                next++;
                if (HeaderField.isForbidden(token.text())) {
                    throw SelectorErrors.at(selector, token.position(), token.text()
                            + " cannot be used in a message selector: the header fields a selector can use are "
                            + HeaderField.NAMES + ", and the other names beginning with JMS are reserved except "
                            + "JMSX... and JMS_... properties (Jakarta Messaging 3.1 section 3.8.1.1)");
                }
                return new Identifier(token.position(), token.text());
            }
            case LEFT_PAREN -> {
                next++;
                enter(token);
                Expression inner = or();
                nesting--;
                expect(TokenKind.RIGHT_PAREN, "')' to close the '(' at column " + (token.position() + 1));
                return inner;
            }
            case NULL -> throw SelectorErrors.at(selector, token.position(),
                    "NULL is not a value; test for it with IS NULL or IS NOT NULL");
            default -> throw unexpected(token, token.kind().isKeyword()
                    ? "an expression (reserved words cannot be identifiers)" : "an expression");
        }
    }

    /**
     * An exact numeric literal with Java's meaning: decimal literals are {@code int} when they fit and have no
     * {@code L}, otherwise {@code long} (section 3.8.1.1 supports "numbers in the range of Java long", so a long
     * decimal needs no suffix); hexadecimal and octal literals are two's-complement bit patterns, so {@code 0xFFFFFFFF}
     * is the {@code int} -1, exactly as in Java.
     */
    private Literal exactLiteral(Token token, boolean negate, int position) throws InvalidSelectorException {
        Token.ExactNumber number = (Token.ExactNumber) token.value();
        BigInteger magnitude = number.magnitude();
        Number value;
        if (number.radix() == 10) {
            BigInteger signed = negate ? magnitude.negate() : magnitude;
            if (!number.longSuffix() && signed.bitLength() < Integer.SIZE) {
                value = signed.intValue();
            } else if (signed.bitLength() < Long.SIZE) {
                value = signed.longValue();
            } else {
                throw SelectorErrors.at(selector, position, "number " + (negate ? "-" : "") + token.text()
                        + " is outside the range of a Java long");
            }
        } else {
            value = !number.longSuffix() && magnitude.bitLength() <= Integer.SIZE
                    ? (Number) magnitude.intValue() : (Number) magnitude.longValue();
            if (negate) {
                value = UnaryArithmetic.negate(value);
            }
        }
        return new Literal(position, value, ValueType.NUMBER, (negate ? "-" : "") + token.text());
    }

    private Expression requireCondition(Expression expression, String context) throws InvalidSelectorException {
        if (!expression.type().canBe(ValueType.BOOLEAN)) {
            throw SelectorErrors.at(selector, expression.position, context + " needs a conditional expression, but "
                    + expression + " is " + expression.type());
        }
        return expression;
    }

    private <E extends Expression> E requireType(E expression, ValueType type, String context)
            throws InvalidSelectorException {
        if (!expression.type().canBe(type)) {
            throw SelectorErrors.at(selector, expression.position, context + " needs " + type + ", but "
                    + expression + " is " + expression.type());
        }
        return expression;
    }

    private Identifier requireIdentifier(Expression expression, Token first, String context)
            throws InvalidSelectorException {
        // A parenthesised identifier parses to the same node; the first token tells them apart.
        if (expression instanceof Identifier identifier && first.kind() == TokenKind.IDENTIFIER) {
            return identifier;
        }
        throw SelectorErrors.at(selector, expression.position, context + " applies to an identifier, but found "
                + expression);
    }

    private void requireComparable(ComparisonOperator op, Expression left, Expression right)
            throws InvalidSelectorException {
        if (!op.isEquality()) {
            for (Expression side : List.of(left, right)) {
                if (side.type() == ValueType.STRING || side.type() == ValueType.BOOLEAN) {
                    throw SelectorErrors.at(selector, side.position, "'" + op.symbol() + "' compares numbers, but "
                            + side + " is " + side.type() + " (strings and booleans compare only with = and <>)");
                }
            }
        } else if (left.type() != ValueType.DYNAMIC && right.type() != ValueType.DYNAMIC
                && left.type() != right.type()) {
            throw SelectorErrors.at(selector, left.position, "'" + op.symbol() + "' compares values of one type, but "
                    + left + " is " + left.type() + " and " + right + " is " + right.type());
        }
    }

    private static ComparisonOperator comparisonOperator(TokenKind kind) {
        return switch (kind) {
            case EQUAL -> ComparisonOperator.EQUAL;
            case NOT_EQUAL -> ComparisonOperator.NOT_EQUAL;
            case LESS -> ComparisonOperator.LESS;
            case LESS_OR_EQUAL -> ComparisonOperator.LESS_OR_EQUAL;
            case GREATER -> ComparisonOperator.GREATER;
            case GREATER_OR_EQUAL -> ComparisonOperator.GREATER_OR_EQUAL;
            default -> null;
        };
    }

    private void enter(Token token) throws InvalidSelectorException {
        if (++nesting > MAX_DEPTH) {
            throw SelectorErrors.at(selector, token.position(),
                    "the selector nests parentheses or prefix operators more than " + MAX_DEPTH + " levels deep");
        }
    }

    private <E extends Expression> E checkDepth(E expression) throws InvalidSelectorException {
        if (expression.depth > MAX_DEPTH) {
            throw SelectorErrors.at(selector, expression.position,
                    "the selector nests operations more than " + MAX_DEPTH + " levels deep");
        }
        return expression;
    }

    private Token peek() {
        return tokens.get(next);
    }

    private boolean accept(TokenKind kind) {
        if (peek().kind() != kind) {
            return false;
        }
        next++;
        return true;
    }

    private Token expect(TokenKind kind, String expected) throws InvalidSelectorException {
        Token token = peek();
        if (token.kind() != kind) {
            throw unexpected(token, expected);
        }
        next++;
        return token;
    }

    private InvalidSelectorException unexpected(Token found, String expected) {
        return SelectorErrors.at(selector, found.position(), "expected " + expected + " but found " + found.describe());
    }
}
