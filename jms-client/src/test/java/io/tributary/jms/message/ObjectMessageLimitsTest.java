package io.tributary.jms.message;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ObjectMessageLimits} bound what an allowed {@code ObjectMessage} body may make its receiver do, with the
 * known denial-of-service shapes built here: nested sets that hash their whole graph (each level doubling the work),
 * a length field claiming a huge array, a deep chain that would exhaust the stack. Each is refused with a
 * {@link MessageFormatException} that names the property to raise, before the expensive part runs.
 */
class ObjectMessageLimitsTest {

    /** Serialized bytes of {@code value}, written without any limit, as a hostile producer would. */
    private static byte[] serialize(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private static TributaryObjectMessage received(byte[] body, ObjectMessageLimits limits) {
        TributaryObjectMessage message = new TributaryObjectMessage();
        message.loadSerialized(body);
        message.setLimits(limits);
        return message;
    }

    /**
     * Two sets per level, each holding both sets of the level below: deserializing level {@code n} hashes
     * 2<sup>n</sup> paths. Depth 28 cost 31 s of CPU without a depth limit. Built from the top down, each set added
     * to its parents while it holds at most a string, so that building it here costs nothing.
     */
    private static Set<Object> nestedSets(int depth) {
        Set<Object> root = new HashSet<>();
        List<Set<Object>> parents = List.of(root);
        for (int level = 0; level < depth; level++) {
            Set<Object> left = new HashSet<>();
            Set<Object> right = new HashSet<>();
            right.add("level " + level); // the two sets of a level must differ, or a parent keeps one of them
            for (Set<Object> parent : parents) {
                parent.add(left);
                parent.add(right);
            }
            parents = List.of(left, right);
        }
        return root;
    }

    private static void assertRefusedFor(ObjectMessageLimits.Limit limit, TributaryObjectMessage message) {
        MessageFormatException refused = assertThrows(MessageFormatException.class, message::getObject);
        assertTrue(refused.getMessage().contains(limit.property()), refused.getMessage());
        assertTrue(refused.getMessage().contains("over the " + limit.property() + " limit"), refused.getMessage());
    }

    @Test
    void nestedHashSetsDeeperThanTheDefaultDepthAreRefusedOnTheWayDownBeforeAnySetIsHashed() throws Exception {
        // Without the limit this body would take hours to read; refused, it returns at the 21st level.
        assertRefusedFor(ObjectMessageLimits.Limit.DEPTH,
                received(serialize(nestedSets(40)), ObjectMessageLimits.DEFAULT));
    }

    @Test
    void aLengthFieldClaimingAHugeArrayIsRefusedBeforeTheArrayIsAllocated() throws Exception {
        byte[] body = serialize(new byte[16]);
        // The array's length is the int just before its 16 elements, at the end of the stream.
        int lengthAt = body.length - 16 - 4;
        assertEquals(16, ByteBuffer.wrap(body, lengthAt, 4).getInt());
        ByteBuffer.wrap(body, lengthAt, 4).putInt(Integer.MAX_VALUE);
        assertRefusedFor(ObjectMessageLimits.Limit.ARRAY_LENGTH, received(body, ObjectMessageLimits.DEFAULT));
    }

    @Test
    void aCollectionWhoseTableWouldBeLargerThanTheArrayLimitIsRefused() throws Exception {
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            values.add(i);
        }
        HashMap<Integer, Integer> map = new HashMap<>();
        values.forEach(v -> map.put(v, v));
        assertRefusedFor(ObjectMessageLimits.Limit.ARRAY_LENGTH,
                received(serialize(map), ObjectMessageLimits.DEFAULT.withMaxArrayLength(1_024)));
    }

    @Test
    void aChainDeeperThanTheStackCouldFollowIsRefusedByDepthNotByAStackOverflow() throws Exception {
        List<Object> head = new ArrayList<>();
        List<Object> current = head;
        for (int i = 0; i < 5_000; i++) {
            List<Object> next = new ArrayList<>();
            current.add(next);
            current = next;
        }
        byte[] body;
        try {
            body = serialize(head);
        } catch (StackOverflowError e) {
            return; // this JVM's stack cannot write it either; nothing to read
        }
        assertRefusedFor(ObjectMessageLimits.Limit.DEPTH, received(body, ObjectMessageLimits.DEFAULT));
    }

    @Test
    void moreObjectsThanTheReferenceLimitAreRefused() throws Exception {
        // Boxed numbers, not strings: the JDK asks the filter about every new object except a string.
        List<Integer> numbers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            numbers.add(1_000 + i);
        }
        assertRefusedFor(ObjectMessageLimits.Limit.REFERENCES,
                received(serialize(numbers), ObjectMessageLimits.DEFAULT.withMaxReferences(100)));
    }

    @Test
    void aBodyLargerThanTheByteLimitIsRefusedBeforeItIsRead() throws Exception {
        byte[] body = serialize(new byte[1_000]);
        MessageFormatException refused = assertThrows(MessageFormatException.class,
                received(body, ObjectMessageLimits.DEFAULT.withMaxBytes(500))::getObject);
        assertTrue(refused.getMessage().contains("objectMessageMaxBytes limit of 500"), refused.getMessage());
        assertTrue(refused.getMessage().contains("reached " + body.length), refused.getMessage());
    }

    @Test
    void anApplicationsOrdinaryObjectGraphPassesTheDefaults() throws JMSException {
        Map<String, Object> order = new HashMap<>();
        List<Map<String, Object>> lines = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            lines.add(new HashMap<>(Map.of("sku", "item-" + i, "amount", new BigDecimal("9.99"), "qty", i)));
        }
        order.put("lines", lines);
        order.put("date", LocalDate.of(2026, 12, 2));
        order.put("attributes", new HashMap<>(Map.of("channel", "web", "priority", 3)));
        order.put("payload", new byte[512 * 1024]);

        TributaryObjectMessage message = new TributaryObjectMessage();
        message.setObject((Serializable) order);
        assertEquals(order.keySet(), ((Map<?, ?>) message.getObject()).keySet());
    }

    @Test
    void theDefaultLimitsAreThoseDocumentedAndALimitBelowOneIsRefusedByName() {
        assertEquals(new ObjectMessageLimits(20, 1_000_000, 1_048_576, 16L * 1024 * 1024),
                ObjectMessageLimits.DEFAULT);
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ObjectMessageLimits.DEFAULT.withMaxDepth(0));
        assertTrue(bad.getMessage().contains("objectMessageMaxDepth"), bad.getMessage());
    }
}
