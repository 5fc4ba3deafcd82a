package io.tributary.jms;

import static io.tributary.jms.ShareSubscriptionOpening.JOIN;
import static io.tributary.jms.ShareSubscriptionOpening.REFUSE;
import static io.tributary.jms.ShareSubscriptionOpening.START_AFRESH;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import io.tributary.jms.kafka.Subscription;
import org.junit.jupiter.api.Test;

/** What opening a consumer of a share-group subscription does, from what the connection and the cluster know. */
class ShareSubscriptionOpeningTest {

    private static final Subscription DURABLE = Subscription.sharedDurable("prices", null, "s", null);
    private static final Subscription DURABLE_RED = Subscription.sharedDurable("prices", null, "s", "color = 'red'");
    private static final Subscription SHARED = Subscription.shared("prices", null, "s", null);
    private static final Subscription SHARED_ELSEWHERE = Subscription.shared("rates", null, "s", null);

    @Test
    void aNewSubscriptionStartsAfresh() {
        assertEquals(START_AFRESH, ShareSubscriptionOpening.decide(DURABLE, List.of(), null, false));
        assertEquals(START_AFRESH, ShareSubscriptionOpening.decide(SHARED, List.of(), null, false));
    }

    @Test
    void aDurableSubscriptionWithoutConsumersIsJoinedWithItsOwnDefinitionAndReplacedWithAnother() {
        assertEquals(JOIN, ShareSubscriptionOpening.decide(DURABLE, List.of(), DURABLE.offsetMetadata(), false));
        assertEquals(START_AFRESH,
                ShareSubscriptionOpening.decide(DURABLE_RED, List.of(), DURABLE.offsetMetadata(), false));
    }

    @Test
    void aNonDurableSubscriptionWithoutConsumersNoLongerExistsWhateverWasLeft() {
        assertEquals(START_AFRESH, ShareSubscriptionOpening.decide(SHARED, List.of(), SHARED.offsetMetadata(), false));
    }

    @Test
    void anActiveSubscriptionIsJoinedWithItsDefinitionAndRefusedWithAnother() {
        assertEquals(JOIN, ShareSubscriptionOpening.decide(SHARED, List.of(SHARED), SHARED.offsetMetadata(), false));
        assertEquals(JOIN, ShareSubscriptionOpening.decide(SHARED, List.of(), SHARED.offsetMetadata(), true));
        assertEquals(REFUSE, ShareSubscriptionOpening.decide(SHARED_ELSEWHERE, List.of(), SHARED.offsetMetadata(),
                true));
        assertEquals(REFUSE, ShareSubscriptionOpening.decide(DURABLE_RED, List.of(), DURABLE.offsetMetadata(), true));
    }

    @Test
    void thisConnectionsOpenConsumerMakesItActiveBeforeItHasReceived() {
        assertEquals(REFUSE, ShareSubscriptionOpening.decide(SHARED_ELSEWHERE, List.of(SHARED), null, false),
                "refused by the open consumer's definition even with nothing stored");
        assertEquals(JOIN, ShareSubscriptionOpening.decide(DURABLE, List.of(DURABLE), null, false),
                "an open consumer's subscription is joined, not started again");
    }

    @Test
    void metadataWithoutADefinitionSaysNothing() {
        assertEquals(JOIN, ShareSubscriptionOpening.decide(DURABLE_RED, List.of(), "written by someone else", false));
    }
}
