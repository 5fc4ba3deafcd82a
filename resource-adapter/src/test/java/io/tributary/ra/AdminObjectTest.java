package io.tributary.ra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

import jakarta.jms.InvalidDestinationException;

import org.junit.jupiter.api.Test;

class AdminObjectTest {

    @Test
    void aQueueAdminObjectIsTheQueueItsNameConfigPropertyNames() throws Exception {
        QueueAdminObject queue = new QueueAdminObject();
        assertNull(queue.getName());
        assertThrows(InvalidDestinationException.class, queue::getQueueName, "unconfigured");
        queue.setName("orders");
        assertEquals("orders", queue.getQueueName());
        QueueAdminObject same = new QueueAdminObject();
        same.setName("orders");
        assertEquals(queue, same);
        assertEquals(queue.hashCode(), same.hashCode());
        IllegalArgumentException illegal = assertThrows(IllegalArgumentException.class,
                () -> queue.setName("no spaces"));
        assertTrue(illegal.getMessage().contains("no spaces"), illegal.getMessage());
    }

    @Test
    void aTopicAdminObjectSurvivesSerializationAsJndiStoresMayNeed() throws Exception {
        TopicAdminObject topic = new TopicAdminObject();
        topic.setName("prices");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(topic);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            TopicAdminObject copy = (TopicAdminObject) in.readObject();
            assertEquals("prices", copy.getTopicName());
            assertEquals(topic, copy);
        }
        assertNotEquals(topic, new TopicAdminObject());
    }
}
