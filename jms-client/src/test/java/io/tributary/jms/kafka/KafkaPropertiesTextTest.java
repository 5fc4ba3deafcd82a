package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class KafkaPropertiesTextTest {

    @Test
    void entriesAreNameValuePairsSeparatedBySemicolonsTrimmedAndInOrder() {
        Map<String, String> properties = KafkaPropertiesText.parse("kafkaProperties",
                " security.protocol = SASL_SSL ;producer.linger.ms=5;; consumer.max.poll.records=10 ");
        assertEquals(List.of("security.protocol", "producer.linger.ms", "consumer.max.poll.records"),
                List.copyOf(properties.keySet()));
        assertEquals("SASL_SSL", properties.get("security.protocol"));
        assertEquals("5", properties.get("producer.linger.ms"));
    }

    @Test
    void aBackslashEscapesSemicolonsEqualsSignsAndItself() {
        Map<String, String> properties = KafkaPropertiesText.parse("kafkaProperties",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
                        + "password=\"p\"\\;;path=C:\\\\kafka;odd\\=name=x");
        assertEquals("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";",
                properties.get("sasl.jaas.config"));
        assertEquals("C:\\kafka", properties.get("path"));
        assertEquals("x", properties.get("odd=name"));
    }

    @Test
    void laterEntriesWinAndValuesMayBeEmptyOrContainEqualsSigns() {
        Map<String, String> properties = KafkaPropertiesText.parse("p", "a=1;a=2;b=;c=x=y");
        assertEquals(Map.of("a", "2", "b", "", "c", "x=y"), properties);
    }

    @Test
    void nothingToParseIsNoProperties() {
        assertTrue(KafkaPropertiesText.parse("p", null).isEmpty());
        assertTrue(KafkaPropertiesText.parse("p", "  ").isEmpty());
        assertTrue(KafkaPropertiesText.parse("p", ";;").isEmpty());
    }

    @Test
    void malformedEntriesAreRejectedNamingThePropertyAndTheEntry() {
        IllegalArgumentException noEquals = assertThrows(IllegalArgumentException.class,
                () -> KafkaPropertiesText.parse("kafkaProperties", "acks=all;linger.ms"));
        assertTrue(noEquals.getMessage().startsWith("kafkaProperties entry 'linger.ms'"), noEquals.getMessage());
        IllegalArgumentException noName = assertThrows(IllegalArgumentException.class,
                () -> KafkaPropertiesText.parse("kafkaProperties", "=5"));
        assertTrue(noName.getMessage().contains("has no name"), noName.getMessage());
        IllegalArgumentException escape = assertThrows(IllegalArgumentException.class,
                () -> KafkaPropertiesText.parse("kafkaProperties", "a=b\\"));
        assertTrue(escape.getMessage().contains("unfinished"), escape.getMessage());
    }
}
