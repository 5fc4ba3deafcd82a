package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The consumer groups of queues and subscriptions, as the provider and the adapter both name them. */
class SubscriptionTest {

    @Test
    void groupsAreNamedAfterTheQueueOrTheSubscriptionAndItsClientId() {
        assertEquals("orders", Subscription.queue("orders").groupId());
        assertEquals("earliest", Subscription.queue("orders").resetPolicy());
        assertFalse(Subscription.nonDurable("prices").hasGroup());
        assertEquals("latest", Subscription.nonDurable("prices").resetPolicy());

        Subscription durable = Subscription.durable("prices", "C", "audit", null, false);
        assertEquals("jms.durable.C.audit", durable.groupId());
        assertEquals("latest", durable.resetPolicy());
        assertTrue(durable.isDurable());
        assertEquals("jms.shared-durable.C.audit", Subscription.sharedDurable("prices", "C", "audit", null).groupId());
        assertEquals("jms.shared-durable.audit", Subscription.sharedDurable("prices", null, "audit", null).groupId());
        assertEquals("jms.shared.C.s", Subscription.shared("prices", "C", "s").groupId());
        assertEquals("jms.shared.s", Subscription.shared("prices", null, "s").groupId());
        assertFalse(Subscription.shared("prices", null, "s").isDurable());

        assertFalse(Subscription.queue("orders").startsAtCreation(), "a new queue group starts at the earliest");
        assertTrue(Subscription.shared("prices", null, "s").startsAtCreation());
        assertEquals("durable subscription jms.durable.C.audit to topic prices", durable.describe());
    }

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
        assertEquals("", Subscription.shared("orders", null, "s").offsetMetadata(), "the adapter's MDBs");
        assertEquals(SubscriptionDefinition.of("orders", "a = 1", false),
                Subscription.shared("orders", "C", "s", "a = 1").offsetMetadata(), "the provider's shared consumers");
        assertEquals("jms.shared.C.s", Subscription.shared("orders", "C", "s", "a = 1").groupId());
    }
}
