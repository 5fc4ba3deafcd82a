package io.tributary.jms.message;

import io.tributary.jms.format.RecordHeaders;

import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The rules for message property names and for the JMS-defined ({@code JMSX}) and provider ({@code JMS_Tributary_})
 * properties.
 *
 * <p>A property name must be a message selector identifier (Jakarta Messaging 3.1 §3.5.1, §3.8.1.1): a Java
 * identifier that is not one of the selector's reserved words {@code NULL TRUE FALSE NOT AND OR BETWEEN LIKE IN IS
 * ESCAPE}. The reserved words are refused in any letter case because selector keywords are case-insensitive, so a
 * property called {@code like} could never be referenced in a selector. A name beginning with {@code JMS} must begin
 * with {@code JMSX} (JMS-defined) or {@code JMS_} (provider-specific): any other {@code JMS} name is a header field
 * reference in a selector, not a property.
 *
 * <p>Of the JMSX properties an application may set {@link #JMSX_GROUP_ID} and {@link #JMSX_GROUP_SEQ} (Table 3-3
 * "set by client") and {@link #JMSX_USER_ID} and {@link #JMSX_APP_ID}, which Tributary carries but never sets
 * itself. Their types are enforced (String, int, String, String). {@link #JMSX_DELIVERY_COUNT} and every
 * {@code JMS_Tributary_} property are set by the provider on receive and are read-only to applications; the other
 * JMSX names of Table 3-3 are not supported and are refused.
 *
 * <p>Stateless; any thread.
 */
final class PropertyNames {

    static final String JMSX_DELIVERY_COUNT = RecordHeaders.DELIVERY_COUNT_PROPERTY;
    static final String JMSX_GROUP_ID = "JMSXGroupID";
    static final String JMSX_GROUP_SEQ = "JMSXGroupSeq";
    static final String JMSX_USER_ID = "JMSXUserID";
    static final String JMSX_APP_ID = "JMSXAppID";

    /** The prefix of Tributary's provider-specific properties (§3.5.10: {@code JMS_<vendor_name>}). */
    static final String PROVIDER_PREFIX = RecordHeaders.PROVIDER_PROPERTY_PREFIX;

    /** The JMSX properties this provider supports, as {@code ConnectionMetaData.getJMSXPropertyNames} lists them. */
    static final List<String> SUPPORTED_JMSX = List.of(JMSX_DELIVERY_COUNT, JMSX_GROUP_ID, JMSX_GROUP_SEQ);

    private static final Set<String> RESERVED_WORDS =
            Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE");

    private PropertyNames() {
    }

    /**
     * Checks that {@code name} is a legal property name.
     *
     * @throws IllegalArgumentException naming the rule the name breaks
     */
    static void checkIdentifier(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a property name must not be null or empty");
        }
        if (!Character.isJavaIdentifierStart(name.codePointAt(0))) {
            throw new IllegalArgumentException("property name '" + name
                    + "' must start with a Java identifier start character (a letter, '_' or '$')");
        }
        for (int i = Character.charCount(name.codePointAt(0)); i < name.length(); ) {
            int c = name.codePointAt(i);
            if (!Character.isJavaIdentifierPart(c)) {
                throw new IllegalArgumentException("property name '" + name
                        + "' may contain only Java identifier characters; '" + Character.toString(c)
                        + "' at index " + i + " is not one");
            }
            i += Character.charCount(c);
        }
        if (RESERVED_WORDS.contains(name.toUpperCase(Locale.ROOT))) {
            throw new IllegalArgumentException("property name '" + name
                    + "' is a message selector reserved word (NULL TRUE FALSE NOT AND OR BETWEEN LIKE IN IS ESCAPE,"
                    + " in any case)");
        }
        if (name.startsWith("JMS") && !name.startsWith("JMSX") && !name.startsWith("JMS_")) {
            throw new IllegalArgumentException("property name '" + name + "' begins with 'JMS', which is reserved"
                    + " for header fields; only 'JMSX' (JMS-defined) and 'JMS_' (provider-specific) property names"
                    + " may begin with it");
        }
    }

    /** Whether {@code name} is a property only the provider sets: JMSXDeliveryCount and {@code JMS_Tributary_*}. */
    static boolean isProviderOwned(String name) {
        return RecordHeaders.isProviderOwned(name);
    }

    /**
     * Checks that an application may set {@code name} to {@code value}; {@code value} is already one of the
     * property value types or null.
     *
     * @throws IllegalArgumentException if the name is illegal or a JMSX name this provider does not support
     * @throws MessageNotWriteableException if the name is a property only the provider sets
     * @throws MessageFormatException if a JMSX property is given a value of the wrong type
     */
    static void checkApplicationSettable(String name, Object value)
            throws MessageNotWriteableException, MessageFormatException {
        checkIdentifier(name);
        if (isProviderOwned(name)) {
            throw new MessageNotWriteableException("property '" + name + "' is set by the provider when a message"
                    + " is received and is read-only to applications");
        }
        if (!name.startsWith("JMSX")) {
            return;
        }
        switch (name) {
            case JMSX_GROUP_ID, JMSX_USER_ID, JMSX_APP_ID -> {
                if (value != null && !(value instanceof String)) {
                    throw new MessageFormatException("property '" + name + "' is a String (Jakarta Messaging 3.1"
                            + " Table 3-3); a " + TypeConversions.typeName(value) + " was given");
                }
            }
            case JMSX_GROUP_SEQ -> {
                if (value != null && !(value instanceof Integer)) {
                    throw new MessageFormatException("property '" + name + "' is an int (Jakarta Messaging 3.1"
                            + " Table 3-3); a " + TypeConversions.typeName(value) + " was given");
                }
            }
            default -> throw new IllegalArgumentException("property name '" + name + "' is a JMSX name that"
                    + " applications cannot set here; applications may set JMSXGroupID, JMSXGroupSeq, JMSXUserID"
                    + " and JMSXAppID");
        }
    }
}
