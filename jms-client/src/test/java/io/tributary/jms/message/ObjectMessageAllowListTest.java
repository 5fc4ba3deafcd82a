package io.tributary.jms.message;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObjectMessageAllowListTest {

    @Test
    void theDefaultAllowsBoxedTypesStringAndTheJdkValuePackagesOnly() {
        ObjectMessageAllowList list = ObjectMessageAllowList.DEFAULT;
        assertEquals(List.of("java.util", "java.math", "java.time"), list.entries());
        for (Class<?> allowed : List.of(String.class, Integer.class, Number.class, Character.class,
                java.util.HashMap.class, java.util.concurrent.ConcurrentHashMap.class, java.math.BigInteger.class,
                java.time.Instant.class, int[].class, String[][].class, Object[].class)) {
            assertTrue(list.allows(allowed), allowed.getName());
        }
        for (Class<?> refused : List.of(Runtime.class, ProcessBuilder.class, java.lang.reflect.Proxy.class,
                javax.management.BadAttributeValueExpException.class, java.net.URL.class, Thread.class,
                ObjectMessageAllowList.class, ObjectMessageAllowList[].class)) {
            assertFalse(list.allows(refused), refused.getName());
        }
    }

    @Test
    void javaLangsCharacterSequencesAreAlwaysAllowedAndOtherJdkValuesOnlyWhenListed() {
        for (ObjectMessageAllowList list : List.of(ObjectMessageAllowList.DEFAULT, ObjectMessageAllowList.parse(""),
                ObjectMessageAllowList.parse("com.example"))) {
            assertTrue(list.allows(StringBuffer.class), list.toString());
            assertTrue(list.allows(StringBuilder.class), list.toString());
            assertTrue(list.allows(StringBuffer[].class), list.toString());
            assertFalse(list.allows(java.net.URI.class), list.toString());
        }
        assertTrue(ObjectMessageAllowList.parse("java.util,java.math,java.time,java.net.URI")
                .allows(java.net.URI.class));
    }

    @Test
    void anEntryMatchesItselfItsSubPackagesAndItsNestedClassesButNotASharedPrefix() {
        ObjectMessageAllowList list = ObjectMessageAllowList.parse(" com.acme , org.example.Order ");
        assertTrue(list.allows("com.acme.Order"));
        assertTrue(list.allows("com.acme.billing.Invoice"));
        assertTrue(list.allows("org.example.Order"));
        assertTrue(list.allows("org.example.Order$Line"));
        assertFalse(list.allows("com.acmecorp.Order"));
        assertFalse(list.allows("org.example.OrderHack"));
        assertFalse(list.allows("java.util.ArrayList"));
        assertEquals("com.acme,org.example.Order", list.toString());
    }

    @Test
    void aPackageWildcardMeansThePackageAndStarMeansEverything() {
        assertEquals(ObjectMessageAllowList.parse("com.acme"), ObjectMessageAllowList.parse("com.acme.*"));
        assertTrue(ObjectMessageAllowList.parse("*").allows("anything.At.All"));
        assertTrue(ObjectMessageAllowList.parse("*").allows(Runtime.class));
    }

    @Test
    void anEmptyListAllowsOnlyTheAlwaysAllowedTypes() {
        ObjectMessageAllowList list = ObjectMessageAllowList.parse("");
        assertTrue(list.allows(Long.class));
        assertTrue(list.allows(byte[].class));
        assertFalse(list.allows(java.util.ArrayList.class));
    }

    @Test
    void anEntryThatIsNotAJavaNameIsRefusedWithItsText() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ObjectMessageAllowList.parse("com.acme, com..bad"));
        assertTrue(e.getMessage().contains("com..bad"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ObjectMessageAllowList.parse("com/acme"));
        assertThrows(IllegalArgumentException.class, () -> ObjectMessageAllowList.parse("com.*.acme"));
    }
}
