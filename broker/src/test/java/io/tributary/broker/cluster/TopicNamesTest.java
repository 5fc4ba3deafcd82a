package io.tributary.broker.cluster;

import java.util.List;

import org.apache.kafka.common.errors.InvalidTopicException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TopicNamesTest {

    @Test
    void legalNamesPass() {
        for (String name : List.of("orders", "a.b_c-D9", "x".repeat(249), "__consumer_offsets")) {
            assertDoesNotThrow(() -> TopicNames.validate(name), name);
        }
    }

    @Test
    void illegalNamesAreInvalidTopics() {
        for (String name : List.of("", ".", "..", "x".repeat(250), "with space", "slash/", "ümlaut", "star*")) {
            assertThrows(InvalidTopicException.class, () -> TopicNames.validate(name), name);
        }
    }

    @Test
    void namesDifferingOnlyInDotVersusUnderscoreCollide() {
        assertThrows(InvalidTopicException.class, () -> TopicNames.checkCollisions("a.b", List.of("a_b")));
        assertDoesNotThrow(() -> TopicNames.checkCollisions("a.b", List.of("a.c", "ab")));
    }
}
