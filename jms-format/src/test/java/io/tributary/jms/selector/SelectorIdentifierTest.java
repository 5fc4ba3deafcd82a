package io.tributary.jms.selector;

import static io.tributary.jms.selector.SelectorTesting.invalid;
import static io.tributary.jms.selector.SelectorTesting.matches;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Identifiers, keywords and whitespace (Jakarta Messaging 3.1 section 3.8.1.1): identifiers are case-sensitive
 * Java identifiers, keywords are case-insensitive and reserved, and only six header fields may be named.
 */
class SelectorIdentifierTest {

    @Test
    void identifiersAreCaseSensitive() {
        assertTrue(matches("color = 'blue'", "color", "blue"));
        assertFalse(matches("Color = 'blue'", "color", "blue"));
        assertFalse(matches("COLOR = 'blue'", "color", "blue"));
        assertTrue(matches("Color = 'red' AND color = 'blue'", "Color", "red", "color", "blue"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"$price", "_x", "a1", "a_b$c", "größe", "価格", "ın", "\uD835\uDC00bc"})
    void identifiersAreJavaIdentifiers(String name) {
        assertTrue(matches(name + " = 1", name, 1));
    }

    @Test
    void keywordsAreCaseInsensitive() {
        assertTrue(matches("a and b", "a", true, "b", true));
        assertTrue(matches("a Or b", "a", false, "b", true));
        assertTrue(matches("not a", "a", false));
        assertTrue(matches("age between 1 and 2", "age", 2));
        assertTrue(matches("age Not Between 1 AND 2", "age", 3));
        assertTrue(matches("c in ('x')", "c", "x"));
        assertTrue(matches("c not in ('x')", "c", "y"));
        assertTrue(matches("c like 'x!%' escape '!'", "c", "x%"));
        assertTrue(matches("c is null"));
        assertTrue(matches("c iS nOt NuLl", "c", 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE",
            "null", "and", "Between", "escape"})
    void reservedWordsCannotBeIdentifiers(String word) {
        invalid(word + " = 1");
        invalid("x = 1 AND " + word + " = 'a'");
        invalid(word + " IS NULL");
    }

    @Test
    void wordsThatMerelyContainKeywordsAreIdentifiers() {
        assertTrue(matches("android = 1 AND order = 2 AND island = 3 AND nullable = 4 AND isX = 5 AND notes = 6",
                "android", 1, "order", 2, "island", 3, "nullable", 4, "isX", 5, "notes", 6));
    }

    @Test
    void theSixSelectableHeaderFieldsAreLookedUpByName() {
        assertTrue(matches("JMSDeliveryMode = 'NON_PERSISTENT'", "JMSDeliveryMode", "NON_PERSISTENT"));
        assertTrue(matches("JMSPriority >= 7", "JMSPriority", 9));
        assertTrue(matches("JMSMessageID = 'ID:1'", "JMSMessageID", "ID:1"));
        assertTrue(matches("JMSTimestamp > 0", "JMSTimestamp", 5L));
        assertTrue(matches("JMSCorrelationID = 'c'", "JMSCorrelationID", "c"));
        assertTrue(matches("JMSType = 't'", "JMSType", "t"));
    }

    @Test
    void nullableHeaderFieldsAreNullWhenUnset() {
        assertTrue(matches("JMSCorrelationID IS NULL AND JMSType IS NULL AND JMSMessageID IS NULL"));
        assertFalse(matches("JMSType = 'car'"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"JMSDestination", "JMSReplyTo", "JMSExpiration", "JMSRedelivered", "JMSDeliveryTime",
            "JMSpriority", "JMSFoo", "JMS"})
    void otherJmsNamesAreRefused(String name) {
        String message = invalid(name + " IS NULL").getMessage();
        assertTrue(message.contains(name + " cannot be used in a message selector"), message);
        assertTrue(message.contains("3.8.1.1"), message);
        invalid("a = 1 OR " + name + " = 1");
    }

    @Test
    void jmsxAndProviderSpecificPropertiesAreAllowed() {
        assertTrue(matches("JMSXDeliveryCount > 1", "JMSXDeliveryCount", 2));
        assertTrue(matches("JMSXGroupID = 'g' AND JMSXGroupSeq = 3", "JMSXGroupID", "g", "JMSXGroupSeq", 3));
        assertTrue(matches("JMS_Tributary_Partition = 3", "JMS_Tributary_Partition", 3));
    }

    @Test
    void namesThatOnlyLookLikeHeaderFieldsInAnotherCaseAreApplicationProperties() {
        assertTrue(matches("jmsDestination = 'q'", "jmsDestination", "q"));
        assertTrue(matches("JmsType = 'q'", "JmsType", "q"));
    }

    @Test
    void whitespaceIsJavaWhitespace() {
        assertTrue(matches("\ta\n=\r1\fAND\r\nb = 2 ", "a", 1, "b", 2));
        assertTrue(matches("a=1 AND(b=2)", "a", 1, "b", 2));
    }

    /** As in Java, a number runs into a letter that follows it: 1AND is one malformed token, not 1 and AND. */
    @Test
    void aNumberFollowedDirectlyByALetterIsMalformed() {
        assertTrue(invalid("a=1AND b=2").getMessage().contains("malformed number 1AND"));
    }

    @Test
    void otherSpaceCharactersAreRefused() {
        assertTrue(invalid("a\u00A0= 1").getMessage().contains("U+00A0"));
        invalid("a =\u2003 1");
    }

    @Test
    void unknownCharactersAreRefused() {
        invalid("a # 1");
        invalid("a = 1;");
        invalid("a == 1");
        invalid("a = 1 /* SQL comments are not supported (section 3.8.1.3) */");
        invalid("a = \"x\"");
        invalid("a % 2 = 0");
    }
}
