package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SubscriptionTest {

    @Test
    void onlyMetadataCarryingADefinitionCanShowADurableSubscriptionChanged() {
        Subscription red = Subscription.durable("orders", "client", "audit", "color = 'red'", false);
        assertEquals(SubscriptionDefinition.of("orders", "color = 'red'", false), red.offsetMetadata());
        assertTrue(red.offsetMetadata().startsWith(SubscriptionDefinition.PREFIX));

        assertFalse(red.definedOtherwiseThan(null));
        assertFalse(red.definedOtherwiseThan(""), "committed by an earlier version or the resource adapter");
        assertFalse(red.definedOtherwiseThan("written by some Kafka client"));
        assertFalse(red.definedOtherwiseThan(red.offsetMetadata()));

        assertTrue(red.definedOtherwiseThan(SubscriptionDefinition.of("orders", "color = 'blue'", false)));
        assertTrue(red.definedOtherwiseThan(SubscriptionDefinition.of("orders", "color = 'red'", true)));
        assertTrue(red.definedOtherwiseThan(SubscriptionDefinition.of("invoices", "color = 'red'", false)));
        assertTrue(red.definedOtherwiseThan(SubscriptionDefinition.of("orders", null, false)));
    }

    @Test
    void noSelectorNullAndBlankAreOneDefinitionAndOnlyDurableSubscriptionsCarryOne() {
        assertEquals(SubscriptionDefinition.of("orders", null, false), SubscriptionDefinition.of("orders", "", false));
        assertEquals(SubscriptionDefinition.of("orders", null, false), SubscriptionDefinition.of("orders", " \t", false));
        assertEquals(Subscription.sharedDurable("orders", null, "s", null).offsetMetadata(),
                SubscriptionDefinition.of("orders", null, false));
        String longSelector = "color = '" + "x".repeat(10_000) + "'";
        assertEquals(SubscriptionDefinition.PREFIX.length() + 64,
                SubscriptionDefinition.of("orders", longSelector, false).length(),
                "a digest: Kafka bounds offset metadata (offset.metadata.max.bytes)");

        assertEquals("", Subscription.queue("orders").offsetMetadata());
        assertEquals("", Subscription.nonDurable("orders").offsetMetadata());
        assertEquals("", Subscription.shared("orders", null, "s").offsetMetadata());
    }
}
