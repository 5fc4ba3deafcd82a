package io.tributary.jms;

import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DestinationsTest {

    @ParameterizedTest
    @ValueSource(strings = {"orders", "a", "Orders.EU-west_1", "..a", "-", "_"})
    void legalTopicNamesNameEveryKindOfDestination(String name) throws JMSException {
        assertEquals(name, TributaryQueue.of(name).getQueueName());
        assertEquals(name, TributaryTopic.of(name).getTopicName());
        assertEquals(name, TributaryTemporaryQueue.of(name).getQueueName());
        assertEquals(name, TributaryTemporaryTopic.of(name).getTopicName());
    }

    @Test
    void aNameOf249CharactersIsTheLongestAllowed() throws JMSException {
        TributaryQueue.of("q".repeat(249));
        InvalidDestinationException e =
                assertThrows(InvalidDestinationException.class, () -> TributaryQueue.of("q".repeat(250)));
        assertTrue(e.getMessage().contains("250 characters"), e.getMessage());
        assertTrue(e.getMessage().contains("at most 249"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "with space", "slash/name", "colon:name", "ünïcode", "star*"})
    void illegalTopicNamesAreInvalidDestinationsNamingTheRule(String name) {
        for (Creator creator : List.<Creator>of(TributaryQueue::of, TributaryTopic::of, TributaryTemporaryQueue::of,
                TributaryTemporaryTopic::of, n -> TributaryTemporaryQueue.create(n, d -> { }))) {
            InvalidDestinationException e =
                    assertThrows(InvalidDestinationException.class, () -> creator.create(name));
            assertTrue(name.isEmpty() || e.getMessage().contains("'" + name + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("topic name"), e.getMessage());
        }
    }

    @Test
    void aNullNameIsAnInvalidDestination() {
        assertThrows(InvalidDestinationException.class, () -> TributaryQueue.of(null));
        assertThrows(InvalidDestinationException.class, () -> TributaryTopic.of(null));
    }

    @Test
    void destinationsAreEqualByKindAndName() throws JMSException {
        assertEquals(TributaryQueue.of("x"), TributaryQueue.of("x"));
        assertEquals(TributaryQueue.of("x").hashCode(), TributaryQueue.of("x").hashCode());
        assertNotEquals(TributaryQueue.of("x"), TributaryQueue.of("y"));
        List<Destination> kinds = List.of(TributaryQueue.of("x"), TributaryTopic.of("x"),
                TributaryTemporaryQueue.of("x"), TributaryTemporaryTopic.of("x"));
        for (int i = 0; i < kinds.size(); i++) {
            for (int j = 0; j < kinds.size(); j++) {
                assertEquals(i == j, kinds.get(i).equals(kinds.get(j)), kinds.get(i) + " vs " + kinds.get(j));
            }
        }
        assertEquals(TributaryTemporaryQueue.create("x", d -> { }), TributaryTemporaryQueue.of("x"));
    }

    @Test
    void toStringIsTheReplyToUri() throws JMSException {
        assertEquals("queue://a", TributaryQueue.of("a").toString());
        assertEquals("topic://a", TributaryTopic.of("a").toString());
        assertEquals("temp-queue://a", TributaryTemporaryQueue.of("a").toString());
        assertEquals("temp-topic://a", TributaryTemporaryTopic.of("a").toString());
    }

    @Test
    void destinationsSurviveSerializationAndTemporaryOnesLoseTheirOwner() throws Exception {
        assertEquals(TributaryQueue.of("q"), copy(TributaryQueue.of("q")));
        assertEquals(TributaryTopic.of("t"), copy(TributaryTopic.of("t")));
        TributaryTemporaryQueue temp = TributaryTemporaryQueue.create("tq", d -> { });
        TributaryTemporaryQueue copied = (TributaryTemporaryQueue) copy(temp);
        assertEquals(temp, copied);
        assertNull(copied.owner());
        assertThrows(IllegalStateException.class, copied::delete);
        assertEquals(TributaryTemporaryTopic.of("tt"), copy(TributaryTemporaryTopic.create("tt", d -> { })));
    }

    @Test
    void deserializationRefusesAnIllegalName() throws Exception {
        TributaryQueue queue = TributaryQueue.of("ok");
        Field name = TributaryQueue.class.getDeclaredField("name");
        name.setAccessible(true);
        name.set(queue, "not ok");
        assertThrows(InvalidObjectException.class, () -> copy(queue));
    }

    @Test
    void aTemporaryDestinationIsDeletedThroughItsOwner() throws JMSException {
        List<Destination> deleted = new ArrayList<>();
        TemporaryDestinationOwner owner = deleted::add;
        TributaryTemporaryQueue queue = TributaryTemporaryQueue.create("tq", owner);
        TributaryTemporaryTopic topic = TributaryTemporaryTopic.create("tt", owner);
        assertSame(owner, queue.owner());
        queue.delete();
        topic.delete();
        assertEquals(List.of(queue, topic), deleted);
    }

    @Test
    void theOwnersRefusalReachesTheCaller() throws JMSException {
        TributaryTemporaryQueue queue = TributaryTemporaryQueue.create("tq", d -> {
            throw new JMSException("a consumer still reads " + d);
        });
        JMSException e = assertThrows(JMSException.class, queue::delete);
        assertEquals("a consumer still reads temp-queue://tq", e.getMessage());
    }

    @Test
    void aTemporaryDestinationBuiltFromANameCannotBeDeleted() throws JMSException {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TributaryTemporaryTopic.of("tt").delete());
        assertTrue(e.getMessage().contains("'tt'"), e.getMessage());
        assertThrows(NullPointerException.class, () -> TributaryTemporaryTopic.create("tt", null));
    }

    private interface Creator {
        Destination create(String name) throws JMSException;
    }

    private static Object copy(Serializable object) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(object);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return in.readObject();
        }
    }
}
